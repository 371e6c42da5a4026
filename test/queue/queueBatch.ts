import { mkdtempSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FINISHED_STATUSES } from '../../src/persistence/RunStore.js';
import { waitsForSpecialists } from '../../src/graph/durable/resumeRun.js';
import { runSummary } from '../../src/json/RunSummaryJson.js';
import { MemoryRunStore, PostgresRunStore, RunQueue, resumeRun, type RunnableGraph } from '../../src/index.js';
import { scenarioMetadata, type DemoScenario } from '../../machines/index.js';
import { PG_URL } from '../persistence/storeTargets.js';
import { readCalls, readEffects } from '../reliability/killLedger.js';
import { startWorker, type WorkerProcess } from './workerProcess.js';

/**
 * Batches of customer-service runs through the run queue onto `switchboard worker` processes,
 * against a real Redis and PostgreSQL, judged against the same scenarios run in process: the
 * references, a store schema and queue of a batch's own, waiting for a batch to settle, and the
 * comparison (status, path, answer; order-tool effects counted in a ledger outside the runs).
 */

/** The graphs module the workers load: the customer-service graph with ledgered order tools. */
export const GRAPHS = 'test/reliability/killSwitchGraphs.ts';
// A dead worker's runs continue at once on this host (its pid is gone), so the lease can be long: a
// busy machine that delays a renewal then does not hand a living worker's run to another.
export const WORKER_ARGS = ['--concurrency', '2', '--lock-ms', '3000', '--lease-ms', '10000', '--sweep-ms', '3000'];

/** How a scenario ends in process, and how many order-tool effects it carries out. */
export interface Expected {
  status: string;
  path: string[];
  outputText: string | null;
  effects: number;
}

/** The scenarios, their graphs and how each ends in process. */
export interface References {
  graphs: RunnableGraph[];
  scenarios: DemoScenario[];
  expected: Map<string, Expected>;
  /** The ledger the in-process runs wrote (removed by `close`). */
  ledger: string;
  close(): void;
}

/** A new empty ledger directory. */
export function newLedger(): string {
  const dir = join(mkdtempSync(join(tmpdir(), 'sb-queue-')), 'ledger');
  mkdirSync(dir);
  return dir;
}

/** The run a ledger key belongs to (a specialist's key names its parent run first). */
export const runOfKey = (key: string) => key.split(':')[0]!.split('/')[0]!;

/** Runs every scenario in this process (a reply given where the scenario has one) and notes how each ends. */
export async function inProcessReferences(): Promise<References> {
  const ledger = newLedger();
  // The graphs module reads its ledger when imported: this process's runs (the references) use their own.
  process.env.SWITCHBOARD_KILL_LEDGER = ledger;
  process.env.SWITCHBOARD_KILL_AT = '';
  const module = (await import('../reliability/killSwitchGraphs.js')) as { graphs: RunnableGraph[]; scenarios: DemoScenario[] };
  const expected = new Map<string, Expected>();
  const store = new MemoryRunStore();
  for (const s of module.scenarios) {
    const graph = module.graphs.find((g) => g.name === s.graph)!;
    let run = await graph.run({ input: s.message, metadata: scenarioMetadata(s) }, { store });
    if (run.status === 'waiting' && s.reply !== undefined) run = await resumeRun(graph, run.runId, { reply: s.reply }, { store });
    const effects = readEffects(ledger).filter((e) => runOfKey(e.key) === run.runId).length;
    expected.set(s.id, { status: run.status, path: run.path, outputText: run.outputText, effects });
  }
  return { graphs: module.graphs, scenarios: module.scenarios, expected, ledger, close: () => rmSync(join(ledger, '..'), { recursive: true, force: true }) };
}

/** A batch's store schema, queue and ledger, and how to start workers that reach them. */
export interface Batch {
  store: PostgresRunStore;
  queue: RunQueue;
  ledger: string;
  /** Starts a worker (added to the `workers` the batch was given); `killAt` plans its death. */
  spawnWorker(killAt?: string): WorkerProcess;
  close(): Promise<void>;
}

let batches = 0;

/** A store schema, a queue name and a ledger of their own; every worker spawned is pushed onto `workers`. */
export function newBatch(graphs: RunnableGraph[], redisUrl: string, workers: WorkerProcess[]): Batch {
  const n = ++batches;
  const schema = `qw_${process.pid}_${Date.now().toString(36)}_${n}`;
  const queueName = `workers${n}`;
  const ledger = newLedger();
  const store = new PostgresRunStore({ url: PG_URL, schema, max: 4 });
  const queue = new RunQueue({ store, graphs, redisUrl, queueName });
  const env = (killAt: string): Record<string, string> => ({
    SWITCHBOARD_DATABASE_URL: PG_URL,
    SWITCHBOARD_DATABASE_SCHEMA: schema,
    SWITCHBOARD_DB: '',
    SWITCHBOARD_REDIS_URL: redisUrl,
    SWITCHBOARD_QUEUE: queueName,
    SWITCHBOARD_KILL_LEDGER: ledger,
    SWITCHBOARD_KILL_AT: killAt,
    OPENAI_API_KEY: '',
  });
  return {
    store,
    queue,
    ledger,
    spawnWorker: (killAt = '') => {
      const w = startWorker({ graphs: GRAPHS, workerArgs: WORKER_ARGS }, env(killAt));
      workers.push(w);
      return w;
    },
    close: async () => {
      await queue.close();
      await store.close();
      rmSync(join(ledger, '..'), { recursive: true, force: true });
    },
  };
}

/** True while a stored run has work left on the queue (it has not ended and does not wait for a person). */
async function isOpen(store: PostgresRunStore, runId: string): Promise<boolean> {
  const record = (await store.getRun(runId))!;
  if (FINISHED_STATUSES.has(record.status)) return false;
  // A coordinator run waiting for its specialists' child jobs is still at work.
  return record.status !== 'waiting' || waitsForSpecialists(record);
}

/**
 * Waits until every run ended, or waits with nothing to answer; answers each wait of a scenario
 * with a reply once, through the queue. `tick` runs on every look (the chaos kills).
 */
export async function settle(store: PostgresRunStore, queue: RunQueue, runs: Map<string, DemoScenario>, ms: number, tick?: () => Promise<void>): Promise<void> {
  const replied = new Set<string>();
  const end = Date.now() + ms;
  for (;;) {
    let open = 0;
    for (const [runId, s] of runs) {
      const record = (await store.getRun(runId))!;
      if (FINISHED_STATUSES.has(record.status)) continue;
      if (record.status === 'waiting' && !waitsForSpecialists(record) && !replied.has(runId)) {
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

/** The runs of a batch that are still open (neither ended nor waiting for a person). */
export async function stuckRuns(store: PostgresRunStore, runs: Map<string, DemoScenario>): Promise<string[]> {
  const stuck: string[] = [];
  for (const runId of runs.keys()) if (await isOpen(store, runId)) stuck.push(runId);
  return stuck;
}

/** Every run's end against its scenario's in-process run, and the ledger's effects against the in-process counts. */
export async function compare(store: PostgresRunStore, runs: Map<string, DemoScenario>, ledger: string, expected: Map<string, Expected>): Promise<{ wrong: string[]; repeated: string[]; windowHits: number }> {
  const wrong: string[] = [];
  for (const [runId, s] of runs) {
    const summary = runSummary((await store.getRun(runId))!);
    const want = expected.get(s.id)!;
    const got = JSON.stringify({ status: summary.status, path: summary.path, outputText: summary.outputText });
    const wanted = JSON.stringify({ status: want.status, path: want.path, outputText: want.outputText });
    if (got !== wanted) wrong.push(`${s.id} (${runId}): ${got} ≠ ${wanted}`);
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

/** BullMQ's lists for a batch's queue and each open run's jobs and specialists: what a failed batch prints. */
export async function describeQueue(redisUrl: string, queue: RunQueue, store: PostgresRunStore, runs: Map<string, DemoScenario>): Promise<string> {
  const { Redis } = await import('ioredis');
  const r = new Redis(redisUrl);
  const pre = `bull:${queue.name}:`;
  const dump = [`wait ${await r.llen(pre + 'wait')}: ${(await r.lrange(pre + 'wait', 0, 10)).join(' ')}`, `active ${await r.llen(pre + 'active')}: ${(await r.lrange(pre + 'active', 0, 10)).join(' ')}`];
  for (const z of ['delayed', 'prioritized', 'waiting-children', 'completed', 'failed']) dump.push(`${z} ${await r.zcard(pre + z)}: ${(await r.zrange(pre + z, 0, 10)).join(' ')}`);
  dump.push(`stalled: ${(await r.smembers(pre + 'stalled')).join(' ')}`);
  dump.push(`keys: ${(await r.keys(pre + '*')).filter((k) => !/[0-9a-f]{8}-/.test(k)).join(' ')}`);
  const lists = { wait: await r.lrange(pre + 'wait', 0, -1), active: await r.lrange(pre + 'active', 0, -1), delayed: await r.zrange(pre + 'delayed', 0, -1), wc: await r.zrange(pre + 'waiting-children', 0, -1) };
  const where = (id: string) => Object.entries(lists).filter(([, ids]) => ids.includes(id)).map(([k]) => k).join('+') || 'nowhere';
  for (const runId of runs.keys()) {
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
  return dump.join('\n');
}

/** The last lines of each worker (for a failed batch's message). */
export const workerTails = (workers: WorkerProcess[]) => workers.map((w) => `worker ${w.pid}:\n  ${w.lines.slice(-15).join('\n  ')}`).join('\n');
