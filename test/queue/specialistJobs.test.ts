import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FINISHED_STATUSES } from '../../src/persistence/RunStore.js';
import { MemoryRunStore, PostgresRunStore, RunQueue, type RunnableGraph } from '../../src/index.js';
import { PG_URL } from '../persistence/storeTargets.js';
import { REDIS_MISSING, startTestRedis, type TestRedis } from '../support/startTestRedis.js';
import { startWorker, type WorkerProcess } from './workerProcess.js';

/**
 * A coordinator's three specialists as child jobs (BullMQ flows) on three `switchboard worker`
 * processes, against a real Redis and PostgreSQL: they work at the same time on different worker
 * processes and the join goes on once all have ended; a specialist whose worker is SIGKILLed in the
 * middle of its work is continued by another worker from its own checkpoint, its charge (a side
 * effect through the journal) is not repeated, and the answer is the one the same request gets in process.
 */
const GRAPHS = 'test/queue/specialistJobGraphs.ts';
const WORKER_ARGS = ['--concurrency', '1', '--lock-ms', '3000', '--lease-ms', '10000', '--sweep-ms', '3000'];
const REQUEST = 'Where is my order SO20261001, and can I still return it?';

interface Span {
  kind: string;
  pid: number;
  arrived: number;
  start: number;
  end: number;
}

function newLedger(): string {
  const dir = join(mkdtempSync(join(tmpdir(), 'sb-specialists-')), 'ledger');
  mkdirSync(dir);
  return dir;
}

const lines = <T>(file: string): T[] => (existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as T) : []);

describe.skipIf(REDIS_MISSING !== null)(`coordinator specialists as child jobs on worker processes (real Redis and PostgreSQL)${REDIS_MISSING ? ` — skipped: ${REDIS_MISSING}` : ''}`, () => {
  let redis: TestRedis;
  let reference: { outputText: string | null; path: string[] };
  const referenceLedger = newLedger();
  const workers: WorkerProcess[] = [];
  let counter = 0;

  beforeAll(async () => {
    redis = await startTestRedis();
    process.env.SWITCHBOARD_SPECIALIST_LEDGER = referenceLedger;
    process.env.SWITCHBOARD_SPECIALIST_KILL = '';
    process.env.SWITCHBOARD_SPECIALIST_MEET = '3';
    const { graphs } = (await import('./specialistJobGraphs.js')) as { graphs: RunnableGraph[] };
    const run = await graphs[0]!.run(REQUEST, { store: new MemoryRunStore() });
    expect(run.status).toBe('completed');
    reference = { outputText: run.outputText, path: run.path };
  });

  afterAll(async () => {
    for (const w of workers) w.signal('SIGKILL');
    await Promise.all(workers.map((w) => w.exited));
    await redis?.stop();
    rmSync(join(referenceLedger, '..'), { recursive: true, force: true });
  });

  function setting(kill = '') {
    const n = ++counter;
    const schema = `sj_${process.pid}_${Date.now().toString(36)}_${n}`;
    const queueName = `specialists${n}`;
    const ledger = newLedger();
    const store = new PostgresRunStore({ url: PG_URL, schema, max: 4 });
    const env: Record<string, string> = {
      SWITCHBOARD_DATABASE_URL: PG_URL,
      SWITCHBOARD_DATABASE_SCHEMA: schema,
      SWITCHBOARD_DB: '',
      SWITCHBOARD_REDIS_URL: redis.url,
      SWITCHBOARD_QUEUE: queueName,
      SWITCHBOARD_SPECIALIST_LEDGER: ledger,
      SWITCHBOARD_SPECIALIST_KILL: kill,
      SWITCHBOARD_SPECIALIST_MEET: kill === '' ? '3' : '0',
      OPENAI_API_KEY: '',
    };
    const spawnWorker = () => {
      const w = startWorker({ graphs: GRAPHS, workerArgs: WORKER_ARGS }, env);
      workers.push(w);
      return w;
    };
    const close = async () => {
      await store.close();
      rmSync(join(ledger, '..'), { recursive: true, force: true });
    };
    return { store, ledger, queueName, spawnWorker, close };
  }

  async function finished(store: PostgresRunStore, runId: string, ms: number, live: WorkerProcess[]) {
    const end = Date.now() + ms;
    for (;;) {
      const record = (await store.getRun(runId))!;
      if (FINISHED_STATUSES.has(record.status)) return record;
      if (Date.now() > end) {
        const children = await Promise.all([1, 2, 3].map(async (k) => `${k}:${(await store.getRun(`${runId}:2:${k}`))?.status}`));
        throw new Error(`run ${runId} is still ${record.status} after ${ms} ms (specialists ${children.join(', ')})\n${live.map((w) => `worker ${w.pid}:\n  ${w.lines.slice(-12).join('\n  ')}`).join('\n')}`);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  it('runs three 200 ms specialists at once on three worker processes and joins them once all ended', async () => {
    const { store, ledger, queueName, spawnWorker, close } = setting();
    const queue = new RunQueue({ store, graphs: [], redisUrl: redis.url, queueName });
    try {
      const live = [spawnWorker(), spawnWorker(), spawnWorker()];
      await Promise.all(live.map((w) => w.ready));
      const { graphs } = (await import('./specialistJobGraphs.js')) as { graphs: RunnableGraph[] };
      const runs = new RunQueue({ store, graphs, redisUrl: redis.url, queueName });
      const runId = await runs.start('desk', REQUEST);
      await runs.close();
      const record = await finished(store, runId, 120_000, live);
      expect(record.status).toBe('completed');
      expect(record.outputText).toBe(reference.outputText);

      const spans = lines<Span>(join(ledger, 'spans.jsonl'));
      expect(spans.map((s) => s.kind).sort()).toEqual(['billing', 'orders', 'policy']);
      // Three worker processes, one specialist each, none of them this process.
      const pids = new Set(spans.map((s) => s.pid));
      expect(pids.size).toBe(3);
      for (const pid of pids) expect(live.map((w) => w.pid)).toContain(pid);
      // They worked at the same time: every one started before any ended.
      const lastStart = Math.max(...spans.map((s) => s.start));
      const firstEnd = Math.min(...spans.map((s) => s.end));
      expect(lastStart).toBeLessThan(firstEnd);
      // Each specialist is a stored run of its own, named by the parent run, the dispatch step and the task.
      for (const k of [1, 2, 3]) expect((await store.getRun(`${runId}:2:${k}`))?.status).toBe('completed');
      expect(lines(join(ledger, 'effects.jsonl'))).toHaveLength(3);

      // The figure: the dispatch's wall time against the slowest specialist's work, for this first
      // request (cold workers) and for a few more on the same, now warm, workers.
      const figure = async (id: string, mine: Span[]) => {
        const events = (await store.listEvents(id)).map((e) => e.data as { type: string; nodeId?: string; at: number });
        const began = events.find((e) => e.type === 'node.started' && e.nodeId === 'dispatch')!.at;
        const joined = events.find((e) => e.type === 'node.completed' && e.nodeId === 'dispatch')!.at;
        const slowest = Math.max(...mine.map((s) => s.end - s.start));
        return { wallMs: joined - began, slowestMs: slowest, ratio: +((joined - began) / slowest).toFixed(2) };
      };
      const cold = await figure(runId, spans);
      const serial = spans.reduce((sum, s) => sum + s.end - s.start, 0);
      const skew = Math.max(...spans.map((s) => s.arrived)) - Math.min(...spans.map((s) => s.arrived));
      const warm: Array<{ wallMs: number; slowestMs: number; ratio: number }> = [];
      const more = new RunQueue({ store, graphs, redisUrl: redis.url, queueName });
      try {
        for (let i = 0; i < 3; i++) {
          const next = await more.start('desk', REQUEST);
          const done = await finished(store, next, 120_000, live);
          expect({ status: done.status, outputText: done.outputText }).toEqual({ status: 'completed', outputText: reference.outputText });
          const all = lines<Span>(join(ledger, 'spans.jsonl'));
          expect(all).toHaveLength(3 * (i + 2));
          warm.push(await figure(next, all.slice(-3)));
        }
      } finally {
        await more.close();
      }
      console.info(
        `specialist child jobs: ${JSON.stringify({ ...cold, serialMs: serial, arrivalSkewMs: skew, overlapMs: firstEnd - lastStart, warmRatios: warm.map((w) => w.ratio), warmWallMs: warm.map((w) => w.wallMs) })}`,
      );
      // Each request charged each specialist once.
      expect(lines(join(ledger, 'effects.jsonl'))).toHaveLength(12);
      for (const w of live) w.signal('SIGTERM');
      const ends = await Promise.all(live.map((w) => w.exited));
      expect(ends.map((e) => e.code)).toEqual([0, 0, 0]);
    } finally {
      await queue.close();
      await close();
    }
  }, 180_000);

  it("continues a specialist whose worker is SIGKILLed mid-work on another worker: the join completes with its result, its charge happens once, and the answer is the in-process one", async () => {
    const { store, ledger, queueName, spawnWorker, close } = setting('billing');
    const { graphs } = (await import('./specialistJobGraphs.js')) as { graphs: RunnableGraph[] };
    const queue = new RunQueue({ store, graphs, redisUrl: redis.url, queueName });
    try {
      const live = [spawnWorker(), spawnWorker(), spawnWorker()];
      await Promise.all(live.map((w) => w.ready));
      const runId = await queue.start('desk', REQUEST);
      // Whichever worker takes the billing specialist dies 100 ms into its work, after its charge.
      const death = await Promise.race(live.map((w) => w.exited.then((e) => ({ w, e }))));
      expect(death.e.signal).toBe('SIGKILL');
      const killedPid = Number(readFileSync(join(ledger, 'killed-billing'), 'utf8'));
      expect(killedPid).toBe(death.w.pid);
      const billingRun = `${runId}:2:2`;
      // That the kill fell in the middle of the billing run is checked from its stored events below,
      // not from its status now: the survivors' stalled check may already have taken it over.
      // A replacement worker; the survivors' stalled check gives the dead worker's job back.
      const survivors = [...live.filter((w) => w !== death.w), spawnWorker()];
      const record = await finished(store, runId, 120_000, survivors);
      expect(record.status).toBe('completed');
      expect(record.outputText).toBe(reference.outputText);
      expect(record.outputText).toContain('billing: completed: billing handled');

      // The billing specialist ran to its end on another process, from its own checkpoint.
      const spans = lines<Span>(join(ledger, 'spans.jsonl'));
      const billing = spans.filter((s) => s.kind === 'billing');
      expect(billing).toHaveLength(1);
      expect(billing[0]!.pid).not.toBe(killedPid);
      const billingEvents = (await store.listEvents(billingRun)).map((e) => e.data as { type: string; cause?: string; nodeId?: string });
      // The killed leg started the work and ended nothing: up to the recovery, the node started and
      // neither it nor the run completed; it completed once, after.
      const recovered = billingEvents.findIndex((e) => e.type === 'run.resumed' && e.cause === 'recover');
      expect(recovered).toBeGreaterThan(0);
      const killedLeg = billingEvents.slice(0, recovered).map((e) => (e.nodeId ? `${e.type} ${e.nodeId}` : e.type));
      expect(killedLeg).toContain('node.started work');
      expect(killedLeg).not.toContain('node.completed work');
      expect(killedLeg).not.toContain('run.completed');
      expect(billingEvents.filter((e) => e.type === 'node.completed' && e.nodeId === 'work')).toHaveLength(1);
      expect((await store.getRun(billingRun))?.status).toBe('completed');
      // Every charge once: the billing charge made before the kill was replayed from the journal.
      const effects = lines<{ kind: string; key: string; pid: number }>(join(ledger, 'effects.jsonl'));
      expect(effects.map((e) => e.kind).sort()).toEqual(['billing', 'orders', 'policy']);
      expect(effects.find((e) => e.kind === 'billing')!.pid).toBe(killedPid);
      for (const w of survivors) w.signal('SIGTERM');
      await Promise.all(survivors.map((w) => w.exited));
    } finally {
      await queue.close();
      await close();
    }
  }, 180_000);
});
