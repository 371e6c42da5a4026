import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresRunStore } from '../../src/index.js';
import { PG_URL } from '../persistence/storeTargets.js';
import { runCli } from '../support/runCli.js';
import { REDIS_MISSING, startTestRedis, type TestRedis } from '../support/startTestRedis.js';
import { startWorker, type WorkerProcess } from './workerProcess.js';
import { until as pollUntil, type UntilCheck } from '../support/until.js';

const until = <T>(what: string, check: UntilCheck<T>) => pollUntil(what, check, { ms: 120_000, everyMs: 100 });

describe.skipIf(REDIS_MISSING !== null)(`the CLI in the distributed mode (real Redis and PostgreSQL)${REDIS_MISSING ? ` — skipped: ${REDIS_MISSING}` : ''}`, () => {
  let redis: TestRedis;
  let store: PostgresRunStore;
  let env: Record<string, string>;
  const workers: WorkerProcess[] = [];

  beforeAll(async () => {
    redis = await startTestRedis();
    const schema = `qcli_${process.pid}_${Date.now().toString(36)}`;
    store = new PostgresRunStore({ url: PG_URL, schema, max: 2 });
    env = { SWITCHBOARD_DATABASE_URL: PG_URL, SWITCHBOARD_DATABASE_SCHEMA: schema, SWITCHBOARD_REDIS_URL: redis.url, SWITCHBOARD_QUEUE: 'cli' };
  });
  afterAll(async () => {
    for (const w of workers) w.signal('SIGKILL');
    await Promise.all(workers.map((w) => w.exited));
    await store?.close();
    await redis?.stop();
  });

  it('start, resume and cancel go to the queue; a worker process runs the legs; SIGTERM stops it cleanly', async () => {
    const started = await runCli(['start', 'refund-approval', 'Please refund order SO20261001', '--json'], { env });
    expect(started.stderr).toBe('');
    expect(started.status).toBe(0);
    const queued = JSON.parse(started.stdout) as { runId: string; status: string };
    expect(queued.status).toBe('queued');
    // Nothing runs it until a worker comes.
    expect((await store.getRun(queued.runId))?.status).toBe('queued');

    const other = await runCli(['start', 'refund-approval', 'Please refund order SO20261002'], { env });
    const otherId = /^run (\S+): queued/.exec(other.stdout)?.[1];
    expect(otherId, other.stdout + other.stderr).toBeDefined();
    const cancelled = await runCli(['cancel', otherId!, '--json'], { env });
    expect(JSON.parse(cancelled.stdout)).toMatchObject({ runId: otherId, status: 'cancelled' });

    const worker = startWorker({ graphs: 'machines/index.ts', workerArgs: ['--lock-ms', '2000', '--sweep-ms', '0'] }, { ...env, OPENAI_API_KEY: '', SWITCHBOARD_DB: '' });
    workers.push(worker);
    await worker.ready;
    const waiting = await until('the run to wait', async () => ((await store.getRun(queued.runId))?.status === 'waiting' ? store.getRun(queued.runId) : null));
    expect(waiting?.waitReason).toBe("approve the refund for SO20261001");
    // Started while a worker takes jobs: the command prints the run as it queued it, though the worker may have taken it already.
    const busy = await runCli(['start', 'refund-approval', 'Please refund order SO20261003', '--json'], { env });
    expect(busy.stderr).toBe('');
    expect(JSON.parse(busy.stdout)).toMatchObject({ status: 'queued', input: 'Please refund order SO20261003' });

    const resumed = await runCli(['resume', queued.runId, '--reply', 'approved', '--json'], { env });
    expect(resumed.status).toBe(0);
    expect(JSON.parse(resumed.stdout)).toMatchObject({ runId: queued.runId, status: 'waiting' });
    const done = await until('the run to complete', async () => ((await store.getRun(queued.runId))?.status === 'completed' ? store.getRun(queued.runId) : null));
    expect(done?.outputText).toMatch(/refund/i);

    // The same run in process (the embedded mode: no SWITCHBOARD_REDIS_URL) ends the same way.
    const dir = mkdtempSync(join(tmpdir(), 'sb-qcli-'));
    try {
      const sqlite = { SWITCHBOARD_DB: join(dir, 'runs.db') };
      const local = await runCli(['start', 'refund-approval', 'Please refund order SO20261001', '--json'], { env: sqlite });
      const localRun = JSON.parse(local.stdout) as { runId: string; status: string };
      expect(localRun.status).toBe('waiting');
      const localDone = JSON.parse((await runCli(['resume', localRun.runId, '--reply', 'approved', '--json'], { env: sqlite })).stdout) as { outputText: string; path: string[] };
      expect(localDone.outputText.replaceAll(localRun.runId, '<id>')).toBe(done!.outputText!.replaceAll(queued.runId, '<id>'));
      const shown = JSON.parse((await runCli(['show', queued.runId, '--json'], { env })).stdout) as { path: string[] };
      expect(shown.path).toEqual(localDone.path);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }

    expect(worker.lines.some((l) => l.startsWith(`run ${otherId}: nothing to do`))).toBe(true);
    worker.signal('SIGTERM');
    expect((await worker.exited).code).toBe(0);
    expect(worker.lines).toContain('worker stopped');
  });

  it('refuses the queue without PostgreSQL, and --checkpoint-steps with it, saying what to set', async () => {
    const noPg = await runCli(['start', 'refund-approval', 'x'], { env: { SWITCHBOARD_REDIS_URL: redis.url, SWITCHBOARD_DB: join(tmpdir(), `sb-none-${process.pid}.db`) } });
    expect(noPg.status).toBe(1);
    expect(noPg.stderr).toMatch(/SWITCHBOARD_DATABASE_URL is not a postgres:\/\/ URL/);
    const steps = await runCli(['start', 'refund-approval', 'x', '--checkpoint-steps'], { env });
    expect(steps.status).toBe(2);
    expect(steps.stderr).toMatch(/--checkpoint-steps is not available in the distributed mode/);
    const worker = await runCli(['worker', '--concurrency', '0'], { env });
    expect(worker.status).toBe(2);
    expect(worker.stderr).toMatch(/concurrency must be a whole number from 1 to 1000/);
  });
});
