import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitsForSpecialists } from '../../src/graph/durable/resumeRun.js';
import { scenarioMetadata, type DemoScenario } from '../../machines/index.js';
import { readEffects } from '../reliability/killLedger.js';
import { seededRandom } from '../support/seededRandom.js';
import { REDIS_MISSING, startTestRedis, type TestRedis } from '../support/startTestRedis.js';
import { compare, describeQueue, inProcessReferences, newBatch, settle, stuckRuns, workerTails, type References } from './queueBatch.js';
import type { WorkerProcess } from './workerProcess.js';

/**
 * Customer-service runs (every scenario, waits answered through the queue) started through the
 * run queue and advanced by `switchboard worker` processes, against a real Redis and PostgreSQL:
 * each must end with the status, path and answer of the same scenario run in process, and every
 * order-tool effect (counted in a ledger outside the runs) must happen as often as in process.
 *
 * Chaos: while the runs are fed and run, every few seconds a worker that has ended a leg is
 * SIGKILLed and a new one started (a worker killed before its first leg ends adds nothing but a
 * restart). By default, 30 runs (each scenario three times) fed over 15 s, a kill every 3 s, 3 kills
 * (the chaos stops after 3, or after 90 s). SWITCHBOARD_CHAOS_FULL=1: 300 runs fed over 50 s, a kill
 * every 2 s until they settle, at least 20 kills. SWITCHBOARD_CHAOS_RUNS, SWITCHBOARD_CHAOS_FEED_MS,
 * SWITCHBOARD_CHAOS_KILL_MS and SWITCHBOARD_CHAOS_SETTLE_MS change either size.
 */
const FULL = process.env.SWITCHBOARD_CHAOS_FULL === '1';
const envNumber = (name: string, fallback: number) => (process.env[name] ? Number(process.env[name]) : fallback);
const KILL_EVERY_MS = envNumber('SWITCHBOARD_CHAOS_KILL_MS', FULL ? 2_000 : 3_000);
const FEED_MS = envNumber('SWITCHBOARD_CHAOS_FEED_MS', FULL ? 50_000 : 15_000);
const CHAOS_RUNS = envNumber('SWITCHBOARD_CHAOS_RUNS', FULL ? 300 : 30);
/** Kills at least (the test checks it) and at most (the chaos stops there), and how long the chaos lasts at most. */
const KILLS = FULL ? { min: 20, max: Infinity, withinMs: Infinity } : { min: 3, max: 3, withinMs: 90_000 };
const SETTLE_MS = envNumber('SWITCHBOARD_CHAOS_SETTLE_MS', FULL ? 1_800_000 : 240_000);
/** A worker's line for a leg it ended. */
const LEG_ENDED = /^run .*: (completed|waiting|failed)/;

describe.skipIf(REDIS_MISSING !== null)(`runs through the queue on worker processes (real Redis and PostgreSQL)${REDIS_MISSING ? ` — skipped: ${REDIS_MISSING}` : ''}`, () => {
  let redis: TestRedis;
  let refs: References;
  const workers: WorkerProcess[] = [];

  beforeAll(async () => {
    redis = await startTestRedis();
    refs = await inProcessReferences();
  });

  afterAll(async () => {
    for (const w of workers) w.signal('SIGKILL');
    await Promise.all(workers.map((w) => w.exited));
    await redis?.stop();
    refs?.close();
  });

  it(`ends ${CHAOS_RUNS} runs of every scenario on 3 worker processes as in process, waits answered through the queue, while workers that ended a leg are SIGKILLed (at least ${KILLS.min})`, async () => {
    const { scenarios, expected } = refs;
    const { store, queue, ledger, spawnWorker, close } = newBatch(refs.graphs, redis.url, workers);
    try {
      // The references must mean something: effects, waits answered and a wait left open.
      expect([...expected.values()].reduce((n, e) => n + e.effects, 0)).toBeGreaterThan(0);
      expect(scenarios.some((s) => s.reply !== undefined && expected.get(s.id)!.status === 'completed')).toBe(true);
      expect([...expected.values()].some((e) => e.status === 'waiting')).toBe(true);
      const first = workers.length;
      const live = [spawnWorker(), spawnWorker(), spawnWorker()];
      await Promise.all(live.map((w) => w.ready));
      const total = CHAOS_RUNS;
      const runs = new Map<string, DemoScenario>();
      const began = Date.now();
      // Chaos: every KILL_EVERY_MS a random worker that has ended a leg is SIGKILLed and a new one
      // started. The runs are fed over FEED_MS, so the kills fall while runs are in flight (a batch
      // started at once ends before 20 kills on an idle machine).
      let kills = 0;
      let chaosOn = true;
      const random = seededRandom(20_261_204);
      const chaos = (async () => {
        while (chaosOn && kills < KILLS.max && Date.now() - began < KILLS.withinMs) {
          await new Promise((r) => setTimeout(r, KILL_EVERY_MS));
          const ready = live.filter((w) => w.lines.some((l) => LEG_ENDED.test(l)));
          if (!chaosOn || ready.length === 0) continue;
          const victim = ready[Math.floor(random() * ready.length)]!;
          live.splice(live.indexOf(victim), 1);
          const readyAt = victim.times[victim.lines.findIndex((l) => /^worker .*: taking runs/.test(l))]!;
          console.info(`kill ${victim.pid}: ready after ${readyAt - victim.startedAt} ms, for ${Date.now() - readyAt} ms, ${victim.lines.filter((l) => LEG_ENDED.test(l)).length} legs ended`);
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
          await new Promise((r) => setTimeout(r, FEED_MS / total));
        }
        await settle(store, queue, runs, SETTLE_MS).catch(async (error: Error) => {
          const dump = await describeQueue(redis.url, queue, store, runs);
          console.info(dump);
          throw new Error(`${error.message}\n${dump}\n${workerTails(workers)}`);
        });
      } finally {
        chaosOn = false;
        await chaos;
      }
      const seconds = (Date.now() - began) / 1000;
      const { wrong, repeated } = await compare(store, runs, ledger, refs.expected);
      const stuck = (await stuckRuns(store, runs)).length;
      console.info(`queue batch: ${JSON.stringify({ runs: runs.size, workers: 3, kills, processes: workers.length, wrong: wrong.length, duplicated: repeated.length, stuck, seconds })}`);
      expect(wrong).toEqual([]);
      expect(repeated).toEqual([]);
      expect(stuck).toBe(0);
      expect(kills).toBeGreaterThanOrEqual(KILLS.min);
      // Every worker took part (jobs spread over the processes).
      const advancing = workers.slice(first).filter((w) => w.lines.some((l) => LEG_ENDED.test(l)));
      expect(advancing.length).toBeGreaterThanOrEqual(2);
      // A replacement spawned by the last kill may still be starting: SIGTERM before its handler is installed would kill it.
      await Promise.all(live.map((w) => w.ready));
      for (const w of live) w.signal('SIGTERM');
      const ends = await Promise.all(live.map((w) => w.exited));
      expect(ends.map((e) => e.code)).toEqual(live.map(() => 0));
    } finally {
      await close();
    }
  }, FULL ? 2_400_000 : 300_000);

  it('continues a run whose worker was SIGKILLed right after a side effect on another worker, from its checkpoint, without repeating the effect', async () => {
    const { scenarios, expected } = refs;
    const { store, queue, ledger, spawnWorker, close } = newBatch(refs.graphs, redis.url, workers);
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
      const { wrong, repeated, windowHits } = await compare(store, new Map([[runId, s]]), ledger, expected);
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
