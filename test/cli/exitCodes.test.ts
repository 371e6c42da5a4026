import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MODEL_FAILURES, startFailingModelServer, type FailingModelServer } from '../support/failingModelServer.js';
import { runCli } from '../support/runCli.js';

const dir = mkdtempSync(join(tmpdir(), 'sb-exit-'));
let server: FailingModelServer;
let online: Record<string, string>;

beforeAll(async () => {
  server = await startFailingModelServer();
  online = { OPENAI_API_KEY: 'sk-test-exit-codes-0123456789', OPENAI_BASE_URL: server.baseURL };
});
afterAll(async () => {
  await server.close();
});

type Row = { id: string; status: string; expectedStatus: string; error?: { code: string; message: string } };

describe('exit codes', () => {
  it('exits 1 when the model fails, whichever way it fails, and names the typed error', async () => {
    const names = Object.keys(MODEL_FAILURES);
    const db = join(dir, 'model.db');
    const [all, human, single, singleJson] = await Promise.all([
      // Every failure, one scenario each, in one process.
      runCli(['--db', db, '--graphs', 'test/fixtures/modelFailureGraphs.ts', 'scenarios', '--json'], { env: online, killAfterMs: 300_000 }),
      runCli(['--db', join(dir, 'model-2.db'), '--graphs', 'test/fixtures/modelFailureGraphs.ts', 'scenarios', '--only', 'http-429,connection-reset'], { env: online }),
      runCli(['--db', join(dir, 'model-3.db'), 'run', 'What is the return policy? [fail:http-401]'], { env: online }),
      runCli(['--db', join(dir, 'model-4.db'), 'run', 'What is the return policy? [fail:body-wrong-shape]', '--json'], { env: online }),
    ]);

    expect(all.status, all.stderr).toBe(1);
    const rows = JSON.parse(all.stdout) as Row[];
    expect(rows.map((r) => r.id)).toEqual(names);
    for (const row of rows) {
      expect({ id: row.id, status: row.status, code: row.error?.code }).toEqual({ id: row.id, status: 'failed', code: MODEL_FAILURES[row.id]!.code });
      expect(row.error?.message).toContain(server.baseURL);
      expect(row.error?.message).not.toContain('sk-test-exit-codes');
    }
    for (const name of names) expect(server.hits.get(name), name).toBeGreaterThan(0);
    const report = JSON.parse(all.stderr.trim()) as { error: { code: string; message: string } };
    expect(report.error.code).toBe('scenarios_unexpected');
    expect(report.error.message).toContain(`${names.length} of ${names.length} scenarios did not end as expected`);

    expect(human.status, human.stderr).toBe(1);
    expect(human.stdout).toMatch(/^http-429\s+failed/m);
    expect(human.stderr.trim()).toBe(
      'switchboard: 2 of 2 scenarios did not end as expected: http-429 ended failed, expected completed; connection-reset ended failed, expected completed',
    );

    expect(single.status, single.stderr).toBe(1);
    expect(single.stdout).toMatch(/: failed {3}path: ingest → classify/);
    expect(single.stdout).toMatch(/^error: model "gpt-4o-mini" at .* rejected the credentials \(HTTP 401\).* \[model_error\]$/m);

    expect(singleJson.status, singleJson.stderr).toBe(1);
    expect(JSON.parse(singleJson.stdout)).toMatchObject({ status: 'failed', error: { code: 'model_error', message: expect.stringContaining('cannot read') } });
  }, 360_000);

  it('scenarios exits 1 when any scenario ends other than as expected (either way), and 0 when all end as expected', async () => {
    const graphs = ['--graphs', 'test/fixtures/echoGraphs.ts', 'scenarios'];
    const [mixed, mixedJson, oneOff, asExpected] = await Promise.all([
      runCli(['--db', join(dir, 'scenarios-1.db'), ...graphs]),
      runCli(['--db', join(dir, 'scenarios-2.db'), ...graphs, '--json']),
      runCli(['--db', join(dir, 'scenarios-3.db'), ...graphs, '--only', 'echo-completes,echo-should-wait']),
      runCli(['--db', join(dir, 'scenarios-4.db'), ...graphs, '--only', 'echo-completes,refuse-fails']),
    ]);
    expect(mixed.status, mixed.stderr).toBe(1);
    expect(mixed.stdout).toMatch(/^refuse-fails\s+failed\s/m);
    expect(mixed.stdout).toMatch(/^echo-should-wait\s+completed\s/m);
    expect(mixed.stderr.trim()).toBe(
      'switchboard: 2 of 4 scenarios did not end as expected: refuse-should-complete ended failed, expected completed; echo-should-wait ended completed, expected waiting',
    );

    expect(mixedJson.status, mixedJson.stderr).toBe(1);
    expect((JSON.parse(mixedJson.stdout) as Row[]).map((r) => [r.id, r.status, r.expectedStatus])).toEqual([
      ['echo-completes', 'completed', 'completed'],
      ['refuse-fails', 'failed', 'failed'],
      ['refuse-should-complete', 'failed', 'completed'],
      ['echo-should-wait', 'completed', 'waiting'],
    ]);
    expect(JSON.parse(mixedJson.stderr)).toEqual({ schemaVersion: 1, error: { code: 'scenarios_unexpected', message: expect.stringMatching(/^2 of 4 scenarios did not end as expected: /) } });

    expect(oneOff.status, oneOff.stderr).toBe(1);
    expect(oneOff.stderr.trim()).toBe('switchboard: 1 of 2 scenarios did not end as expected: echo-should-wait ended completed, expected waiting');

    // A scenario expected to fail that fails is as expected: nothing to report.
    expect(asExpected.status, asExpected.stderr).toBe(0);
    expect(asExpected.stderr).toBe('');
  }, 180_000);

  it('under --json a usage error is JSON on stderr and stdout stays empty; --debug adds the stack', async () => {
    const db = join(dir, 'usage.db');
    const [unknownOption, unknownCommand, human, debug] = await Promise.all([
      runCli(['--db', db, 'run', 'hello', '--json', '--bogus']),
      runCli(['--db', db, 'frobnicate', '--json']),
      runCli(['--db', db, 'show', 'no-such-run']),
      runCli(['--db', db, 'show', 'no-such-run', '--json', '--debug']),
    ]);
    expect(unknownOption.status).toBe(2);
    expect(unknownOption.stdout).toBe('');
    expect(JSON.parse(unknownOption.stderr)).toEqual({ schemaVersion: 1, error: { code: 'usage', message: "unknown option '--bogus'" } });
    expect(unknownCommand.status).toBe(2);
    expect(unknownCommand.stdout).toBe('');
    expect(JSON.parse(unknownCommand.stderr)).toEqual({ schemaVersion: 1, error: { code: 'usage', message: "unknown command 'frobnicate'" } });

    expect(human.status).toBe(1);
    expect(human.stderr).toBe('switchboard: run not found: no-such-run [run_not_found]\n');
    expect(debug.status).toBe(1);
    expect(debug.stdout).toBe('');
    const report = JSON.parse(debug.stderr) as { error: { code: string; message: string; stack: string } };
    expect(report.error).toMatchObject({ code: 'run_not_found', message: 'run not found: no-such-run' });
    expect(report.error.stack).toMatch(/RunStateError: run not found: no-such-run\n\s+at /);
  }, 300_000);
});
