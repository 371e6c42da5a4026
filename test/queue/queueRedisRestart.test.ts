import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scenarioMetadata, type DemoScenario } from '../../machines/index.js';
import { REDIS_MISSING, startTestRedis, type TestRedis } from '../support/startTestRedis.js';
import { compare, describeQueue, inProcessReferences, newBatch, settle, stuckRuns, workerTails, type References } from './queueBatch.js';
import type { WorkerProcess } from './workerProcess.js';

/**
 * Redis SIGKILLed in the middle of a batch of customer-service runs on three worker processes, and
 * started again on the same port a second later: once empty (no persistence: every job, lock and
 * waiting-children entry is gone, so the store's sweep must give each open run its job again), and
 * once from its append-only file fsynced every second (as an operator runs it: the jobs come back,
 * but the last second of writes may not). Either way the workers reconnect without restarting, and
 * every run ends with the status, path and answer of its scenario in process, with each order-tool
 * effect (counted in a ledger outside the runs) carried out as often as in process.
 *
 * By default 30 runs (each scenario three times); SWITCHBOARD_CHAOS_FULL=1: 300.
 */
const RUNS = process.env.SWITCHBOARD_CHAOS_FULL === '1' ? 300 : 30;
/** How long the port stays closed: longer than a lock renewal and a sweep period of the workers. */
const DOWN_MS = 4_000;

const finishedLine = /^run .*: (completed|waiting|failed)/;

describe.skipIf(REDIS_MISSING !== null)(`Redis killed and restarted under a batch of queued runs (real Redis and PostgreSQL)${REDIS_MISSING ? ` — skipped: ${REDIS_MISSING}` : ''}`, () => {
  let refs: References;
  const workers: WorkerProcess[] = [];
  const servers: TestRedis[] = [];

  beforeAll(async () => {
    refs = await inProcessReferences();
  });

  afterAll(async () => {
    for (const w of workers) w.signal('SIGKILL');
    await Promise.all(workers.map((w) => w.exited));
    for (const r of servers) await r.stop();
    refs?.close();
  });

  for (const appendonly of [false, true]) {
    it(`ends every run as in process when Redis is SIGKILLed mid-batch and comes back ${appendonly ? 'from its append-only file' : 'empty'}: the same workers reconnect, 0 duplicated effects, 0 stuck`, async () => {
      const redis = await startTestRedis({ appendonly });
      servers.push(redis);
      const { store, queue, ledger, spawnWorker, close } = newBatch(refs.graphs, redis.url, workers);
      try {
        const live = [spawnWorker(), spawnWorker(), spawnWorker()];
        await Promise.all(live.map((w) => w.ready));
        const runs = new Map<string, DemoScenario>();
        for (let i = 0; i < RUNS; i++) {
          const s = refs.scenarios[i % refs.scenarios.length]!;
          runs.set(await queue.start(s.graph, { input: s.message, metadata: scenarioMetadata(s) }), s);
        }
        const began = Date.now();
        const outcomes = () => live.reduce((n, w) => n + w.lines.filter((l) => finishedLine.test(l)).length, 0);
        // The kill falls once a quarter of the batch has ended a leg: runs are then queued, in flight and waiting at once.
        let restartedAt = 0;
        let atKill = { outcomes: 0, open: 0 };
        const tick = async () => {
          if (restartedAt !== 0 || outcomes() < RUNS / 4) return;
          atKill = { outcomes: outcomes(), open: (await stuckRuns(store, runs)).length };
          await redis.restart({ downMs: DOWN_MS });
          restartedAt = Date.now();
        };
        await settle(store, queue, runs, 240_000, tick).catch(async (error: Error) => {
          throw new Error(`${error.message}\n${await describeQueue(redis.url, queue, store, runs)}\n${workerTails(workers)}`);
        });
        const seconds = (Date.now() - began) / 1000;
        const { wrong, repeated } = await compare(store, runs, ledger, refs.expected);
        const stuck = await stuckRuns(store, runs);
        // When each worker ended its first leg after Redis came back (a figure, not a check).
        const firstLegAfterMs = live.map((w) => (w.times.find((t, i) => t > restartedAt && finishedLine.test(w.lines[i]!)) ?? NaN) - restartedAt);
        console.info(`redis restart (${appendonly ? 'append-only file' : 'empty'}): ${JSON.stringify({ runs: runs.size, ...atKill, wrong: wrong.length, duplicated: repeated.length, stuck: stuck.length, seconds, firstLegAfterMs })}`);
        // The kill fell mid-batch: runs were still open when Redis died.
        expect(restartedAt).toBeGreaterThan(0);
        expect(atKill.open).toBeGreaterThan(0);
        expect(wrong).toEqual([]);
        expect(repeated).toEqual([]);
        expect(stuck).toEqual([]);
        // No worker died with Redis, and each advanced runs after it came back (it reconnected).
        expect(workers.filter((w) => live.includes(w) && w.child.exitCode !== null)).toEqual([]);
        const advancedAfter = (w: WorkerProcess) => w.lines.some((l, i) => finishedLine.test(l) && w.times[i]! > restartedAt);
        // The batch's last runs may all have gone to the other workers: more runs, three at a time,
        // until each worker has ended a leg since the restart (one that never reconnected takes none).
        for (let round = 0; round < 20 && !live.every(advancedAfter); round++) {
          const probes = new Map<string, DemoScenario>();
          for (let i = 0; i < 3; i++) {
            const s = refs.scenarios[(round * 3 + i) % refs.scenarios.length]!;
            probes.set(await queue.start(s.graph, { input: s.message, metadata: scenarioMetadata(s) }), s);
          }
          const until = Date.now() + 60_000;
          while ((await stuckRuns(store, probes)).length > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
          // A leg's outcome line comes after the store shows it ended.
          await new Promise((r) => setTimeout(r, 300));
        }
        const after = live.filter(advancedAfter);
        expect(after.length, `workers with a leg ended after the restart: ${after.map((w) => w.pid).join(', ')} of ${live.map((w) => w.pid).join(', ')}`).toBe(live.length);
        for (const w of live) w.signal('SIGTERM');
        expect((await Promise.all(live.map((w) => w.exited))).map((e) => e.code)).toEqual(live.map(() => 0));
      } finally {
        await close();
        await redis.stop();
        servers.splice(servers.indexOf(redis), 1);
      }
    }, 300_000);
  }
});
