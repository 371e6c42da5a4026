import { mkdtempSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FINISHED_STATUSES } from '../../src/persistence/RunStore.js';
import { waitsForSpecialists } from '../../src/graph/durable/resumeRun.js';
import { runSummary } from '../../src/json/RunSummaryJson.js';
import { MemoryRunStore, PostgresRunStore, RunQueue, resumeRun, type RunnableGraph } from '../../src/index.js';
import { scenarioMetadata, type DemoScenario } from '../../machines/index.js';
import { PG_URL } from '../persistence/storeTargets.js';
import { readCalls, readEffects } from '../reliability/killLedger.js';
import { seededRandom } from '../support/seededRandom.js';
import { REDIS_MISSING, startTestRedis, type TestRedis } from '../support/startTestRedis.js';
import { startWorker, type WorkerProcess } from './workerProcess.js';

/**
 * Customer-service runs (every scenario, waits answered through the queue) started through the
 * run queue and advanced by `switchboard worker` processes, against a real Redis and PostgreSQL:
 * each must end with the status, path and answer of the same scenario run in process, and every
 * order-tool effect (counted in a ledger outside the runs) must happen as often as in process.
 *
 * SWITCHBOARD_CHAOS_FULL=1: 300 runs fed over 50 s to 3 workers, one SIGKILLed (and replaced)
 * every 2 s while they run, at least 20 kills; the victim is a worker that has ended a leg (a worker
 * killed before its first leg ends adds nothing but a restart). SWITCHBOARD_CHAOS_RUNS,
 * SWITCHBOARD_CHAOS_FEED_MS, SWITCHBOARD_CHAOS_KILL_MS and SWITCHBOARD_CHAOS_SETTLE_MS change its size. By default: each scenario once on 3 workers, and one planned kill.
 */
const FULL = process.env.SWITCHBOARD_CHAOS_FULL === '1';
const GRAPHS = 'test/reliability/killSwitchGraphs.ts';
// A dead worker's runs continue at once on this host (its pid is gone), so the lease can be long: a
// busy machine that delays a renewal then does not hand a living worker's run to another.
/** Full size: a worker killed every 2 s while the 300 runs are fed over 50 s (and until they settle). */
const envNumber = (name: string, fallback: number) => (process.env[name] ? Number(process.env[name]) : fallback);
const KILL_EVERY_MS = envNumber('SWITCHBOARD_CHAOS_KILL_MS', 2_000);
const FEED_MS = envNumber('SWITCHBOARD_CHAOS_FEED_MS', 50_000);
const CHAOS_RUNS = envNumber('SWITCHBOARD_CHAOS_RUNS', 300);
const WORKER_ARGS = ['--concurrency', '2', '--lock-ms', '3000', '--lease-ms', '10000', '--sweep-ms', '3000'];

interface Expected {
  status: string;
  path: string[];
  outputText: string | null;
  effects: number;
}

function newLedger(): string {
  const dir = join(mkdtempSync(join(tmpdir(), 'sb-queue-')), 'ledger');
  mkdirSync(dir);
  return dir;
}

/** The run a ledger key belongs to (a specialist's key names its parent run first). */
const runOfKey = (key: string) => key.split(':')[0]!.split('/')[0]!;

describe.skipIf(REDIS_MISSING !== null)(`runs through the queue on worker processes (real Redis and PostgreSQL)${REDIS_MISSING ? ` — skipped: ${REDIS_MISSING}` : ''}`, () => {
  let redis: TestRedis;
  let graphs: RunnableGraph[];
  let scenarios: DemoScenario[];
  const expected = new Map<string, Expected>();
  const referenceLedger = newLedger();
  const workers: WorkerProcess[] = [];
  let counter = 0;

  beforeAll(async () => {
    redis = await startTestRedis();
    // The graphs module reads its ledger when imported: this process's runs (the references) use their own.
    process.env.SWITCHBOARD_KILL_LEDGER = referenceLedger;
    process.env.SWITCHBOARD_KILL_AT = '';
    const module = (await import('../reliability/killSwitchGraphs.js')) as { graphs: RunnableGraph[]; scenarios: DemoScenario[] };
    graphs = module.graphs;
    scenarios = module.scenarios;
    const store = new MemoryRunStore();
    for (const s of scenarios) {
      const graph = graphs.find((g) => g.name === s.graph)!;
      let run = await graph.run({ input: s.message, metadata: scenarioMetadata(s) }, { store });
      if (run.status === 'waiting' && s.reply !== undefined) run = await resumeRun(graph, run.runId, { reply: s.reply }, { store });
      const effects = readEffects(referenceLedger).filter((e) => runOfKey(e.key) === run.runId).length;
      expected.set(s.id, { status: run.status, path: run.path, outputText: run.outputText, effects });
    }
  });

  afterAll(async () => {
    for (const w of workers) w.signal('SIGKILL');
    await Promise.all(workers.map((w) => w.exited));
    await redis?.stop();
    rmSync(join(referenceLedger, '..'), { recursive: true, force: true });
  });

  /** A store schema, a queue name and a ledger of their own; the env a worker needs to reach them. */
  function setting() {
    const n = ++counter;
    const schema = `qw_${process.pid}_${Date.now().toString(36)}_${n}`;
    const queueName = `workers${n}`;
    const ledger = newLedger();
    const store = new PostgresRunStore({ url: PG_URL, schema, max: 4 });
    const queue = new RunQueue({ store, graphs, redisUrl: redis.url, queueName });
    const env = (killAt = ''): Record<string, string> => ({
      SWITCHBOARD_DATABASE_URL: PG_URL,
      SWITCHBOARD_DATABASE_SCHEMA: schema,
      SWITCHBOARD_DB: '',
      SWITCHBOARD_REDIS_URL: redis.url,
      SWITCHBOARD_QUEUE: queueName,
      SWITCHBOARD_KILL_LEDGER: ledger,
      SWITCHBOARD_KILL_AT: killAt,
      OPENAI_API_KEY: '',
    });
    const spawnWorker = (killAt = '') => {
      const w = startWorker({ graphs: GRAPHS, workerArgs: WORKER_ARGS }, env(killAt));
      workers.push(w);
      return w;
    };
    const close = async () => {
      await queue.close();
      await store.close();
      rmSync(join(ledger, '..'), { recursive: true, force: true });
    };
    return { store, queue, ledger, spawnWorker, close };
  }

  /**
   * Waits until every run ended, or waits with nothing to answer; answers each wait of a scenario
   * with a reply once, through the queue. `tick` runs on every look (the chaos kills).
   */
  async function settle(store: PostgresRunStore, queue: RunQueue, runs: Map<string, DemoScenario>, ms: number, tick?: () => Promise<void>): Promise<void> {
    const replied = new Set<string>();
    const end = Date.now() + ms;
    for (;;) {
      let open = 0;
      for (const [runId, s] of runs) {
        const record = (await store.getRun(runId))!;
        if (FINISHED_STATUSES.has(record.status)) continue;
        // A coordinator run waiting for its specialists' child jobs is still at work.
        if (record.status === 'waiting' && waitsForSpecialists(record)) {
          open += 1;
          continue;
        }
        if (record.status === 'waiting' && !replied.has(runId)) {
          if (s.reply === undefined) continue;
          await queue.resume(runId, s.reply);
          replied.add(runId);
        }
        open += 1;
      }
      if (open === 0) return;
      if (Date.now() > end) {
        const left = await Promise.all([...runs.keys()].map(async (id) => `${id}:${(await store.getRun(id))?.status}`));
        throw new Error(`runs still open after ${ms} ms: ${left.filter((l) => !/completed|failed|waiting/.test(l)).join(', ')}`);
      }
      await tick?.();
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  /** Every run's end against its scenario's in-process run, and the ledger's effects against the in-process counts. */
  async function compare(store: PostgresRunStore, runs: Map<string, DemoScenario>, ledger: string): Promise<{ wrong: string[]; repeated: string[]; windowHits: number }> {
    const wrong: string[] = [];
    for (const [runId, s] of runs) {
      const summary = runSummary((await store.getRun(runId))!);
      const want = expected.get(s.id)!;
      const got = { status: summary.status, path: summary.path, outputText: summary.outputText };
      if (JSON.stringify(got) !== JSON.stringify({ status: want.status, path: want.path, outputText: want.outputText })) {
        wrong.push(`${s.id} (${runId}): ${JSON.stringify(got)} ≠ ${JSON.stringify({ status: want.status, path: want.path, outputText: want.outputText })}`);
      }
    }
    const effects = readEffects(ledger);
    const keys = effects.map((e) => e.key);
    const repeated = keys.filter((key, i) => keys.indexOf(key) !== i).map((key) => `${key} carried out twice`);
    for (const [runId, s] of runs) {
      const n = effects.filter((e) => runOfKey(e.key) === runId).length;
      if (n !== expected.get(s.id)!.effects) repeated.push(`${s.id} (${runId}): ${n} effects, ${expected.get(s.id)!.effects} in process`);
    }
    const calls = readCalls(ledger);
    return { wrong, repeated, windowHits: new Set(calls.filter((key, i) => calls.indexOf(key) !== i)).size };
  }

  it(`ends every scenario${FULL ? ' (300 runs, a worker SIGKILLed every 2 s)' : ''} on 3 worker processes as in process, waits answered through the queue`, async () => {
    const { store, queue, ledger, spawnWorker, close } = setting();
    try {
      // The references must mean something: effects, waits answered and a wait left open.
      expect([...expected.values()].reduce((n, e) => n + e.effects, 0)).toBeGreaterThan(0);
      expect(scenarios.some((s) => s.reply !== undefined && expected.get(s.id)!.status === 'completed')).toBe(true);
      expect([...expected.values()].some((e) => e.status === 'waiting')).toBe(true);
      const live = [spawnWorker(), spawnWorker(), spawnWorker()];
      await Promise.all(live.map((w) => w.ready));
      const total = FULL ? CHAOS_RUNS : scenarios.length;
      const runs = new Map<string, DemoScenario>();
      const began = Date.now();
      // Chaos (full size): every KILL_EVERY_MS a random worker that is taking runs is SIGKILLed and
      // a new one started. The runs are fed over FEED_MS, so the kills fall while runs are in
      // flight (a batch started at once ends before 20 kills on an idle machine).
      let kills = 0;
      let chaosOn = FULL;
      const random = seededRandom(20_261_204);
      const chaos = (async () => {
        while (chaosOn) {
          await new Promise((r) => setTimeout(r, KILL_EVERY_MS));
          const ready = live.filter((w) => w.lines.some((l) => /^run /.test(l)));
          if (!chaosOn || ready.length === 0) continue;
          const victim = ready[Math.floor(random() * ready.length)]!;
          live.splice(live.indexOf(victim), 1);
          const readyAt = victim.times[victim.lines.findIndex((l) => /^worker .*: taking runs/.test(l))]!;
          console.info(`kill ${victim.pid}: ready after ${readyAt - victim.startedAt} ms, for ${Date.now() - readyAt} ms, ${victim.lines.filter((l) => /^run /.test(l)).length} outcomes`);
          victim.signal('SIGKILL');
          await victim.exited;
          kills += 1;
          live.push(spawnWorker());
        }
      })();
      try {
        for (let i = 0; i < total; i++) {
          const s = scenarios[i % scenarios.length]!;
          runs.set(await queue.start(s.graph, { input: s.message, metadata: scenarioMetadata(s) }), s);
          if (FULL) await new Promise((r) => setTimeout(r, FEED_MS / total));
        }
        await settle(store, queue, runs, FULL ? envNumber('SWITCHBOARD_CHAOS_SETTLE_MS', 1_800_000) : 240_000).catch(async (error: Error) => {
          const { Redis } = await import('ioredis');
          const r = new Redis(redis.url);
          const pre = `bull:${queue.name}:`;
          const dump = [`wait ${await r.llen(pre + 'wait')}: ${(await r.lrange(pre + 'wait', 0, 10)).join(' ')}`, `active ${await r.llen(pre + 'active')}: ${(await r.lrange(pre + 'active', 0, 10)).join(' ')}`];
          for (const z of ['delayed', 'prioritized', 'waiting-children', 'completed', 'failed']) dump.push(`${z} ${await r.zcard(pre + z)}: ${(await r.zrange(pre + z, 0, 10)).join(' ')}`);
          dump.push(`stalled: ${(await r.smembers(pre + 'stalled')).join(' ')}`);
          dump.push(`keys: ${(await r.keys(pre + '*')).filter((k) => !/[0-9a-f]{8}-/.test(k)).join(' ')}`);
          const lists = { wait: await r.lrange(pre + 'wait', 0, -1), active: await r.lrange(pre + 'active', 0, -1), delayed: await r.zrange(pre + 'delayed', 0, -1), wc: await r.zrange(pre + 'waiting-children', 0, -1) };
          const where = (id: string) => Object.entries(lists).filter(([, ids]) => ids.includes(id)).map(([k]) => k).join('+') || 'nowhere';
          for (const [runId] of runs) {
            const record = await store.getRun(runId);
            if (record === null || FINISHED_STATUSES.has(record.status)) continue;
            const queued = (record.snapshot as { context?: { waiting?: { queued?: { runs: { runId: string }[] } } } }).context?.waiting?.queued;
            if (record.status === 'waiting' && queued === undefined) continue;
            dump.push(`${runId} ${record.status} v${record.version} owner ${record.owner}`);
            for (const key of (await r.keys(`${pre}${runId}*`)).sort()) {
              const id = key.slice(pre.length);
              if (/:(lock|processed|dependencies|failed|unsuccessful|logs)$/.test(id)) {
                dump.push(`   ${id} (${await r.type(key)})`);
                continue;
              }
              const h = await r.hgetall(key);
              dump.push(`   job ${id} in ${where(id)}: ${JSON.stringify({ processedOn: h.processedOn, finishedOn: h.finishedOn, failedReason: h.failedReason, atm: h.atm, stc: h.stc, parentKey: h.parentKey })}`);
            }
            for (const child of queued?.runs ?? []) {
              const c = await store.getRun(child.runId);
              dump.push(`   child ${child.runId}: ${c?.status} v${c?.version} owner ${c?.owner}`);
            }
          }
          r.disconnect();
          console.info(dump.join('\n'));
          throw new Error(`${error.message}\n${dump.join('\n')}\n${workers.map((w) => `worker ${w.pid}:\n  ${w.lines.slice(-15).join('\n  ')}`).join('\n')}`);
        });
      } finally {
        chaosOn = false;
        await chaos;
      }
      const seconds = (Date.now() - began) / 1000;
      const { wrong, repeated } = await compare(store, runs, ledger);
      const stuck = [...runs.keys()].length - (await Promise.all([...runs.keys()].map((id) => store.getRun(id)))).filter((r) => r !== null && (FINISHED_STATUSES.has(r.status) || r.status === 'waiting')).length;
      console.info(`queue batch: ${JSON.stringify({ runs: runs.size, workers: 3, kills, processes: workers.length, wrong: wrong.length, duplicated: repeated.length, stuck, seconds })}`);
      expect(wrong).toEqual([]);
      expect(repeated).toEqual([]);
      if (FULL) expect(kills).toBeGreaterThanOrEqual(20);
      // Every worker took part (jobs spread over the processes).
      const advancing = live.filter((w) => w.lines.some((l) => /^run .*: (completed|waiting|failed)/.test(l)));
      expect(advancing.length).toBeGreaterThanOrEqual(FULL ? 1 : 2);
      for (const w of live) w.signal('SIGTERM');
      const ends = await Promise.all(live.map((w) => w.exited));
      expect(ends.map((e) => e.code)).toEqual(live.map(() => 0));
    } finally {
      await close();
    }
  }, FULL ? 2_400_000 : 300_000);

  it('continues a run whose worker was SIGKILLed right after a side effect on another worker, from its checkpoint, without repeating the effect', async () => {
    const { store, queue, ledger, spawnWorker, close } = setting();
    try {
      const s = scenarios.find((x) => x.id === '5-multi')!;
      expect(expected.get(s.id)!.effects).toBeGreaterThan(0);
      // Alone on the queue, this worker takes the run and dies of SIGKILL right after its first effect, before the journal write.
      const doomed = spawnWorker('effect:1:after');
      await doomed.ready;
      const runId = await queue.start(s.graph, { input: s.message, metadata: scenarioMetadata(s) });
      const death = await doomed.exited;
      expect(death.signal).toBe('SIGKILL');
      const atDeath = (await store.getRun(runId))!;
      // The effect is a specialist's: its run (a child job) died; the coordinator run waits for it, stored.
      expect(atDeath.status).toBe('waiting');
      expect(waitsForSpecialists(atDeath)).toBe(true);
      expect(readEffects(ledger)).toHaveLength(1);
      // Two new workers: one's stalled check gives the job back, and the run continues from its last checkpoint.
      const rest = [spawnWorker(), spawnWorker()];
      await settle(store, queue, new Map([[runId, s]]), 120_000);
      const { wrong, repeated, windowHits } = await compare(store, new Map([[runId, s]]), ledger);
      expect(wrong).toEqual([]);
      expect(repeated).toEqual([]);
      // The effect's call came again after the kill (its result was not journaled), and its idempotency key closed it.
      expect(windowHits).toBe(1);
      const stored = await store.listEvents(runId);
      const events = stored.map((e) => e.type);
      // At least one leg after the kill (a busy machine may hand the run on again: each leg is fenced by the store).
      expect(events.filter((t) => t === 'run.resumed').length).toBeGreaterThanOrEqual(1);
      // Every leg ends with run.completed (the one that parked the run for its specialists: status waiting); one ends the run.
      const ends = stored.filter((e) => e.type === 'run.completed').map((e) => (e.data as { run?: { status?: string } }).run?.status);
      expect(ends.filter((status) => status !== 'waiting')).toEqual(['completed']);
      // The specialist whose worker died was continued from its own checkpoint (its run is a child job's).
      const specialistRuns = (await store.listRuns({ limit: 100 })).filter((r) => r.runId.startsWith(`${runId}:`));
      expect(specialistRuns.length).toBeGreaterThan(0);
      const recovered = await Promise.all(specialistRuns.map(async (r) => (await store.listEvents(r.runId)).some((e) => e.type === 'run.resumed' && (e.data as { cause?: string }).cause === 'recover')));
      expect(recovered).toContain(true);
      for (const w of rest) w.signal('SIGTERM');
      await Promise.all(rest.map((w) => w.exited));
    } finally {
      await close();
    }
  }, 300_000);
});
