import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { startFakeOpenAIServer } from '../../src/testing/index.js';

const run = promisify(execFile);
const example = fileURLToPath(new URL('../../examples/05-structured-agent.ts', import.meta.url));

/** The environment without any model settings, so the example cannot reach a real endpoint. */
function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const key of ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'SWITCHBOARD_MODEL', 'SWITCHBOARD_MODEL_TIMEOUT_MS', 'SWITCHBOARD_MODEL_IDLE_TIMEOUT_MS', 'SWITCHBOARD_MODEL_MAX_RETRIES']) {
    delete env[key];
  }
  return { ...env, ...extra };
}

describe('examples/05-structured-agent.ts', () => {
  it('runs against an OpenAI-compatible endpoint: forced tool call, json_schema response format, one repair turn', async () => {
    const server = await startFakeOpenAIServer([
      { toolCalls: [{ name: 'lookup_customer', arguments: { email: 'bo@example.com' } }] },
      { text: '{"category":"technical","urgency":"high","summary":"Login fails"}' },
      { text: '{"category":"technical","urgency":5,"summary":"Login fails"}' },
    ]);
    try {
      const env = cleanEnv({ OPENAI_API_KEY: 'test-key', OPENAI_BASE_URL: server.baseURL, SWITCHBOARD_MODEL: 'gpt-fake' });
      const { stdout } = await run(process.execPath, ['--import', 'tsx', example, 'From bo@example.com: login fails with error 500'], { env });
      expect(stdout).toContain('model: openai:gpt-fake');
      expect(stdout).toContain('triage: {"category":"technical","urgency":5,"summary":"Login fails"}');
      expect(stdout).toContain('path:   intake → triage → escalate');
      expect(server.requests).toHaveLength(3);
      const [first, second, third] = server.requests.map((r) => r.body);
      expect(first!['tool_choice']).toEqual({ type: 'function', function: { name: 'lookup_customer' } });
      expect(second!['tool_choice']).toBe('auto');
      expect(first!['response_format']).toMatchObject({ type: 'json_schema', json_schema: { name: 'triage', strict: true } });
      expect((first!['messages'] as Array<{ content: string }>)[1]!.content).toBe('Ticket:\nFrom bo@example.com: login fails with error 500');
      const repair = (third!['messages'] as Array<{ role: string; content: string }>).at(-1)!;
      expect(repair.role).toBe('user');
      expect(repair.content).toContain('urgency');
    } finally {
      await server.close();
    }
  });

  it('exits non-zero and says why when the model never answers in time', async () => {
    const server = await startFakeOpenAIServer([{ text: 'never', stall: 'headers' }]);
    try {
      const env = cleanEnv({ OPENAI_API_KEY: 'test-key', OPENAI_BASE_URL: server.baseURL, SWITCHBOARD_MODEL_TIMEOUT_MS: '500' });
      const failed = await run(process.execPath, ['--import', 'tsx', example, 'From ana@example.com: hello'], { env }).then(
        () => null,
        (error: { code: number; stderr: string }) => error,
      );
      expect(failed?.code).toBe(1);
      expect(failed?.stderr).toContain('run failed');
      expect(failed?.stderr).toContain('SWITCHBOARD_MODEL_TIMEOUT_MS');
    } finally {
      await server.close();
    }
  });
});
