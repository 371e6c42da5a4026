import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { startFakeOpenAIServer } from '../../src/testing/index.js';

const run = promisify(execFile);
const example = fileURLToPath(new URL('../../examples/04-weather-workflow.ts', import.meta.url));

/** The environment without any model settings, so the example cannot reach a real endpoint. */
function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env['OPENAI_API_KEY'];
  delete env['OPENAI_BASE_URL'];
  delete env['SWITCHBOARD_MODEL'];
  return { ...env, ...extra };
}

describe('examples/04-weather-workflow.ts', () => {
  it('runs offline by default and prints its path and answer', async () => {
    const { stdout } = await run(process.execPath, ['--import', 'tsx', example], { env: cleanEnv() });
    expect(stdout).toContain('model: offline');
    expect(stdout).toContain('path: router → weather');
    expect(stdout).toContain('answer: It is sunny and 21°C in Paris.');
  });

  it('runs against the endpoint given by OPENAI_API_KEY and OPENAI_BASE_URL', async () => {
    const server = await startFakeOpenAIServer([
      { text: 'weather: Oslo' },
      { toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }] },
      { text: 'Oslo is rainy at 9°C.' },
    ]);
    try {
      const env = cleanEnv({ OPENAI_API_KEY: 'test-key', OPENAI_BASE_URL: server.baseURL, SWITCHBOARD_MODEL: 'gpt-fake' });
      const { stdout } = await run(process.execPath, ['--import', 'tsx', example, 'How is the weather in Oslo?'], { env });
      expect(stdout).toContain('model: openai:gpt-fake');
      expect(stdout).toContain('path: router → weather');
      expect(stdout).toContain('answer: Oslo is rainy at 9°C.');
      expect(server.requests).toHaveLength(3);
      const toolObservation = (server.requests[2]!.body['messages'] as Array<{ role: string; content: string }>).at(-1)!;
      expect(JSON.parse(toolObservation.content)).toEqual({ ok: true, output: { city: 'Oslo', known: true, sky: 'rainy', celsius: 9 } });
    } finally {
      await server.close();
    }
  });
});
