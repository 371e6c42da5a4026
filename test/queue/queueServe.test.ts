import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresRunStore } from '../../src/index.js';
import { PG_URL } from '../persistence/storeTargets.js';
import { SseReader, seqs } from '../server/sseClient.js';
import { REDIS_MISSING, startTestRedis, type TestRedis } from '../support/startTestRedis.js';
import { startWorker, type WorkerProcess } from './workerProcess.js';
import { until as pollUntil, type UntilCheck } from '../support/until.js';

const until = <T>(what: string, check: UntilCheck<T>) => pollUntil(what, check, { ms: 120_000, everyMs: 100 });

const post = (url: URL, body: unknown) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

/**
 * `switchboard serve` in the distributed mode, as processes: the server hands starts, replies and
 * cancels to the queue and answers at once; a `switchboard worker` process runs the legs; the
 * page's event stream shows the run from the store, every event once.
 */
describe.skipIf(REDIS_MISSING !== null)(`switchboard serve on the queue (real Redis and PostgreSQL)${REDIS_MISSING ? ` — skipped: ${REDIS_MISSING}` : ''}`, () => {
  let redis: TestRedis;
  let store: PostgresRunStore;
  let env: Record<string, string>;
  let server: ChildProcess | undefined;
  let serverOut = '';
  const workers: WorkerProcess[] = [];

  beforeAll(async () => {
    redis = await startTestRedis();
    const schema = `qserve_${process.pid}_${Date.now().toString(36)}`;
    store = new PostgresRunStore({ url: PG_URL, schema, max: 2 });
    env = {
      SWITCHBOARD_DATABASE_URL: PG_URL,
      SWITCHBOARD_DATABASE_SCHEMA: schema,
      SWITCHBOARD_DB: '',
      SWITCHBOARD_REDIS_URL: redis.url,
      SWITCHBOARD_QUEUE: 'serve',
      SWITCHBOARD_TOKEN: '',
      OPENAI_API_KEY: '',
    };
  });
  afterAll(async () => {
    for (const w of workers) w.signal('SIGKILL');
    await Promise.all(workers.map((w) => w.exited));
    if (server !== undefined && server.exitCode === null) server.kill('SIGKILL');
    await store?.close();
    await redis?.stop();
  });

  it('starts, resumes and cancels through the queue (ids at once), a worker process runs the legs, and the page stream shows every event once', async () => {
    server = spawn(process.execPath, ['bin/switchboard.js', '--graphs', 'machines/index.ts', 'serve', '--port', '0'], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    const exited = new Promise<number | null>((resolve) => server!.once('exit', (code) => resolve(code)));
    server.stdout!.on('data', (d: Buffer) => (serverOut += d.toString()));
    server.stderr!.on('data', (d: Buffer) => (serverOut += d.toString()));
    const url = await until('the server to listen', async () => /Switchboard workbench on (http:\/\/127\.0\.0\.1:\d+\/)/.exec(serverOut)?.[1]);
    await until('the queue notice', async () => serverOut.includes('runs go to the queue "serve"'));

    // No worker yet: the run is queued and stays so; the answer came without any node running.
    const started = await post(new URL('/api/runs', url), { graph: 'refund-approval', message: 'Please refund order SO20261001' });
    expect(started.status).toBe(202);
    const { runId, status } = (await started.json()) as { runId: string; status: string };
    expect(status).toBe('queued');
    const other = (await (await post(new URL('/api/runs', url), { graph: 'refund-approval', message: 'Please refund order SO20261002' })).json()) as { runId: string };
    expect((await store.getRun(runId))?.status).toBe('queued');
    // Only the initial transition's events: no node ran.
    expect((await store.listEvents(runId)).map((e) => e.type).filter((t) => t !== 'run.started' && t !== 'node.started')).toEqual([]);

    // What the distributed mode cannot do is refused, saying why.
    const waited = await post(new URL('/api/runs?wait=true', url), { graph: 'refund-approval', message: 'x' });
    expect(waited.status).toBe(400);
    expect(((await waited.json()) as { error: { message: string } }).error.message).toMatch(/not available in the distributed mode/);

    // Cancelled through the queue before any worker took it.
    const cancelled = await post(new URL(`/api/runs/${other.runId}/cancel`, url), {});
    expect(((await cancelled.json()) as { status: string }).status).toBe('cancelled');

    // The page's stream, opened before any worker runs the run, follows both legs.
    const stream = new SseReader(await fetch(new URL(`/api/runs/${runId}/stream`, url)));
    const all = stream.until((m) => m.event === 'end');
    const worker = startWorker({ graphs: 'machines/index.ts', workerArgs: ['--lock-ms', '3000', '--lease-ms', '10000', '--sweep-ms', '0'] }, env);
    workers.push(worker);
    await worker.ready;
    await until('the run to wait', async () => (await store.getRun(runId))?.status === 'waiting');
    const resumed = await post(new URL(`/api/runs/${runId}/resume`, url), { reply: 'approved' });
    expect(resumed.status).toBe(202);
    expect(((await resumed.json()) as { status: string }).status).toBe('queued');
    const messages = await all;
    expect(JSON.parse(messages.at(-1)!.data)).toMatchObject({ status: 'completed' });
    const stored = (await store.listEvents(runId)).map((e) => e.seq);
    expect(stored.length).toBeGreaterThan(10);
    expect(seqs(messages)).toEqual(stored);
    const record = (await store.getRun(runId))!;
    expect(record.outputText).toMatch(/refund/i);
    // The worker ran both legs (and did nothing with the cancelled run); the server ran none. It
    // prints a leg's outcome after the store (so the stream) says the run ended: wait for the line.
    await until('the worker to report the second leg', async () => worker.lines.some((l) => l.startsWith(`run ${runId}: completed`)));
    expect(worker.lines.filter((l) => l.startsWith(`run ${runId}: `))).toEqual([expect.stringMatching(/: waiting/), expect.stringMatching(/: completed/)]);
    expect(worker.lines.some((l) => l.startsWith(`run ${other.runId}: nothing to do`))).toBe(true);
    const health = (await (await fetch(new URL('/api/health', url))).json()) as { activeLegs: number };
    expect(health.activeLegs).toBe(0);
    expect((await store.getRun(other.runId))?.status).toBe('cancelled');

    server.kill('SIGTERM');
    expect(await exited).toBe(0);
  }, 300_000);
});
