import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { OfflineModel } from 'switchboard';
import { reportGraph, salesReportService } from '../../../specialists/index.js';
import { runCli } from '../../support/runCli.js';

const SEPTEMBER = 'Query the September 2026 sales report and tell me revenue and order volume.';

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('salesReportService (one MCP server per process)', () => {
  it('starts the server on the first report and keeps the same one for the next', async () => {
    const service = salesReportService();
    await service.close();
    expect(service.pid).toBeNull();
    const graph = reportGraph({ model: new OfflineModel() });
    const first = await graph.run(SEPTEMBER);
    const pid = service.pid;
    expect(pid).not.toBeNull();
    expect(alive(pid!)).toBe(true);
    const second = await graph.run('How did August 2026 go?');
    expect(service.pid).toBe(pid);
    expect(first.outputText).toContain('1,286,000');
    expect(second.state.get('report')).toMatchObject({ found: true, period: '2026-08', revenue: 1_140_000 });
    expect(salesReportService()).toBe(service);
  });

  it('starts a new server when the last one was killed, and the next report works', async () => {
    const service = salesReportService();
    const graph = reportGraph({ model: new OfflineModel() });
    await graph.run(SEPTEMBER);
    const killed = service.pid!;
    process.kill(killed, 'SIGKILL');
    const run = await graph.run(SEPTEMBER);
    expect(run.status).toBe('completed');
    expect(run.state.get('reportError')).toBeUndefined();
    for (const figure of ['1,286,000', '4,268', '12.81%']) expect(run.outputText).toContain(figure);
    expect(service.pid).not.toBeNull();
    expect(service.pid).not.toBe(killed);
    expect(alive(killed)).toBe(false);
  });

  it('makes the call again on a new server when the server dies between connecting and querying', async () => {
    const service = salesReportService();
    const client = await service.connect();
    process.kill(client.pid!, 'SIGKILL');
    const answer = await service.query('2026-07');
    expect(answer.result).toMatchObject({ found: true, period: '2026-07', revenue: 1_052_000 });
    expect(service.pid).not.toBe(client.pid);
  });

  it('ends a server that lets a call time out and makes the call again on a new one', async () => {
    // A server that stops answering (stopped, stuck in a loop) is as good as dead: every later call
    // would wait out its timeout on it. SIGSTOP makes one; it is sent on again (SIGCONT) if the test fails.
    const service = salesReportService();
    const stalled = await service.connect();
    process.kill(stalled.pid!, 'SIGSTOP');
    try {
      const answer = await service.query('2026-08', { timeoutMs: 5_000 });
      expect(answer.result).toMatchObject({ found: true, period: '2026-08', revenue: 1_140_000 });
      expect(stalled.connected).toBe(false);
      expect(service.pid).not.toBeNull();
      expect(service.pid).not.toBe(stalled.pid);
      // Ended, not left stopped behind this process (a process that never ends times the test out).
      while (alive(stalled.pid!)) await new Promise((r) => setTimeout(r, 20));
    } finally {
      if (alive(stalled.pid!)) process.kill(stalled.pid!, 'SIGCONT');
    }
  }, 120_000);

  it('starts the shared server whatever time limit its first caller gave: a caller with a shorter one fails alone', async () => {
    const service = salesReportService();
    await service.close();
    // The first caller allows 1 ms, less than any server takes to start; the one beside it the default.
    const [hurried, patient] = await Promise.allSettled([service.query('2026-09', { timeoutMs: 1 }), service.query('2026-08')]);
    expect(hurried.status).toBe('rejected');
    expect((hurried as PromiseRejectedResult).reason).toMatchObject({ code: 'tool_timeout', retryable: true });
    expect(patient).toMatchObject({ status: 'fulfilled', value: { result: { found: true, period: '2026-08', revenue: 1_140_000 } } });
    expect(service.pid).not.toBeNull();
    // The server it started is the shared one, for calls with no limit of their own too.
    expect((await service.query('2026-07')).result).toMatchObject({ found: true, period: '2026-07' });
  });

  it('lets the CLI end after a report: the idle server does not hold the process', async () => {
    const result = await runCli(['run', SEPTEMBER, '--json'], { env: { SWITCHBOARD_DB: join(mkdtempSync(join(tmpdir(), 'switchboard-report-')), 'runs.db') }, killAfterMs: 100_000 });
    expect(result.signal).toBeNull();
    expect(result.status).toBe(0);
    const run = JSON.parse(result.stdout) as { path: string[]; outputText: string };
    expect(run.path).toContain('report_mcp');
    expect(run.outputText).toContain('1,286,000');
  });
});
