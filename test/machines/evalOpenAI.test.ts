import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { loadDataset } from '../../machines/customerService/dataset/loadDataset.js';
import { EvalReport } from '../../machines/customerService/eval/EvalReport.js';
import { useFakeOpenAIServer } from '../support/useFakeOpenAIServer.js';
import { scriptedTurn } from './scriptedCustomerServiceModel.js';

const run = promisify(execFile);
const server = useFakeOpenAIServer();

/** What the scripted model answers as the classifier, by message; the dispute is misread on purpose. */
const CLASSIFIER: Record<string, object> = {
  'hi there!': { route: 'general', confidence: 0.95 },
  'How much would I get back if I return order SO20261002?': { route: 'tool', confidence: 0.9, orderId: 'SO20261002' },
  "What's the return policy, and how much would I get back for SO20261002?": {
    route: 'multi',
    confidence: 0.9,
    orderId: 'SO20261002',
    tasks: [
      { kind: 'rag', input: "What's the return policy" },
      { kind: 'tool', input: 'How much would I get back for SO20261002' },
    ],
  },
  'I want to speak to a real person.': { route: 'general', confidence: 0.9 },
};

describe('npm run eval against an OpenAI-compatible model (fake server, openai SDK)', () => {
  it('measures the model the same way: its routes, entities, tasks and the facts in its answers', async () => {
    const messages = loadDataset('heldout').filter((m) => m.text in CLASSIFIER);
    expect(messages).toHaveLength(4);
    const dir = mkdtempSync(join(tmpdir(), 'sb-eval-openai-'));
    const file = join(dir, 'messages.jsonl');
    writeFileSync(file, messages.map((m) => JSON.stringify(m)).join('\n'));
    const classified: string[] = [];
    server().enqueue(
      ...Array.from({ length: 40 }, () => (body: Record<string, unknown>) => {
        const messagesSent = body['messages'] as Array<{ role: string; content: string }>;
        if (messagesSent[0]!.content.startsWith('You route customer-service requests')) {
          const text = messagesSent.at(-1)!.content;
          classified.push(text);
          return { text: JSON.stringify(CLASSIFIER[text] ?? { route: 'general', confidence: 0.1 }) };
        }
        return scriptedTurn(body);
      }),
    );
    const out = join(dir, 'report.json');
    const env = { ...process.env, OPENAI_API_KEY: 'sk-test-fake', OPENAI_BASE_URL: server().baseURL, SWITCHBOARD_MODEL: 'gpt-test' };
    const { stdout } = await run(process.execPath, ['--import', 'tsx', 'scripts/eval.ts', '--file', file, '--json', '--concurrency', '1', '--out', out], { env });
    const report = EvalReport.parse(JSON.parse(stdout));
    expect(report.model).toBe('openai:gpt-test');
    expect(classified.sort()).toEqual(Object.keys(CLASSIFIER).sort());
    expect(report.route).toEqual({ correct: 3, total: 4, percent: 75 });
    expect(report.confusion['human']!['general']).toBe(1);
    expect(report.entities.percent).toBe(100);
    expect(report.tasks).toEqual({ correct: 1, total: 1, percent: 100 });
    const multi = report.cases.find((c) => c.expectedRoute === 'multi')!;
    expect(multi.facts).toEqual([{ fact: 'KB001', found: true }, { fact: '764.15', found: true }]);
    expect(report.facts['tool']).toMatchObject({ correct: 1, total: 1 });
    expect(JSON.parse(readFileSync(out, 'utf8'))).toMatchObject({ model: 'openai:gpt-test', messages: 4 });
    expect(server().unexpected).toBe(0);
    expect(server().requests.every((r) => r.authorized)).toBe(true);
  }, 180_000);
});
