/**
 * The distributed run queue against in-process durable runs, on one machine: the overhead per run
 * of going through Redis and a worker (a 3-node graph, paired: in process and through the queue,
 * back to back, alternating the order; median ratio and median added milliseconds), and the
 * throughput of 1, 2 and 4 workers on runs whose nodes wait 50 ms (I/O-bound: more workers help
 * even on two cores). Workers run in this process (`RunWorker`, concurrency 1 each) so the figures
 * are the queue's, not process start-up's. Needs SWITCHBOARD_DATABASE_URL (postgres://) and
 * SWITCHBOARD_REDIS_URL; writes its section of bench/RESULTS.md.
 *
 *   SWITCHBOARD_DATABASE_URL=postgres://… SWITCHBOARD_REDIS_URL=redis://127.0.0.1:6379 npm run bench:queue
 */
import { loadavg } from 'node:os';
import { Coordinator, END, PostgresRunStore, RunQueue, RunWorker, StateGraph } from '../src/index.js';
import { median, timeOnce } from './measure.js';
import { writeResultsSection } from './resultsSection.js';

const PAIRS = Number(process.env.SWITCHBOARD_BENCH_PAIRS ?? 15);
const THROUGHPUT_RUNS = Number(process.env.SWITCHBOARD_BENCH_QUEUE_RUNS ?? 40);
const url = process.env.SWITCHBOARD_DATABASE_URL;
const redisUrl = process.env.SWITCHBOARD_REDIS_URL;
if (!url?.startsWith('postgres') || !redisUrl) throw new Error('bench:queue needs SWITCHBOARD_DATABASE_URL (postgres://) and SWITCHBOARD_REDIS_URL');

function chain(name: string, waitMs: number): StateGraph {
  const node = (id: string) => async () => {
    if (waitMs > 0) await new Promise((r) => setTimeout(r, waitMs));
    return id;
  };
  return new StateGraph({ name }).addNode('a', node('a')).addNode('b', node('b')).addNode('c', node('c')).start('a').addEdge('a', 'b').addEdge('b', 'c');
}

const fast = chain('fast', 0);
const slow = chain('slow', 50);

/** How long each of the coordinator's three specialists works. */
const SPECIALIST_MS = 200;
/** The time each specialist's node spent working in this round (start to end), by kind. */
const worked = new Map<string, number>();
function specialist(kind: string): StateGraph {
  return new StateGraph({ name: `bench-desk-${kind}` })
    .addNode('work', async () => {
      const start = performance.now();
      await new Promise((r) => setTimeout(r, SPECIALIST_MS));
      worked.set(kind, performance.now() - start);
      return kind;
    })
    .start('work');
}
const coordinator = new Coordinator({ specialists: { orders: specialist('orders'), billing: specialist('billing'), policy: specialist('policy') } });
const desk = new StateGraph({ name: 'bench-desk' })
  .addNode('plan', coordinator.planNode(() => ['orders', 'billing', 'policy'].map((kind) => ({ kind, input: 'x' }))))
  .addNode('dispatch', coordinator.dispatchNode())
  .addNode('answer', () => 'done')
  .start('plan')
  .addEdge('plan', 'dispatch')
  .addEdge('dispatch', 'answer')
  .addEdge('answer', END);
const stamp = `${process.pid}_${Date.now().toString(36)}`;
const store = new PostgresRunStore({ url, schema: `bench_queue_${stamp}`, max: 10 });
const queueName = `bench-${stamp}`;
const graphs = [fast, slow, desk];
const queue = new RunQueue({ store, graphs, redisUrl, queueName });

async function until(runIds: readonly string[]): Promise<void> {
  for (;;) {
    const records = await Promise.all(runIds.map((id) => store.getRun(id)));
    if (records.every((r) => r?.status === 'completed')) return;
    if (records.some((r) => r?.status === 'failed')) throw new Error('a run failed');
    await new Promise((r) => setTimeout(r, 2));
  }
}

async function overhead(): Promise<{ ratio: number; addedMs: number; inProcessMs: number; queuedMs: number }> {
  const worker = new RunWorker({ store, graphs, redisUrl, queueName, sweepEveryMs: 0 });
  await worker.start();
  const local = () => timeOnce(() => fast.run('x', { store }));
  const queued = () => timeOnce(async () => until([await queue.start('fast', 'x')]));
  await local();
  await queued();
  const a: number[] = [];
  const b: number[] = [];
  for (let i = 0; i < PAIRS; i++) {
    if (i % 2 === 0) {
      a.push(await local());
      b.push(await queued());
    } else {
      b.push(await queued());
      a.push(await local());
    }
  }
  await worker.close();
  return { ratio: median(b.map((q, i) => q / a[i]!)), addedMs: median(b.map((q, i) => q - a[i]!)), inProcessMs: median(a), queuedMs: median(b) };
}

async function throughput(workers: number): Promise<number> {
  const pool = Array.from({ length: workers }, () => new RunWorker({ store, graphs, redisUrl, queueName, sweepEveryMs: 0 }));
  await Promise.all(pool.map((w) => w.start()));
  const started = Date.now();
  const ids = await Promise.all(Array.from({ length: THROUGHPUT_RUNS }, () => queue.start('slow', 'x')));
  await until(ids);
  const seconds = (Date.now() - started) / 1000;
  await Promise.all(pool.map((w) => w.close()));
  return THROUGHPUT_RUNS / seconds;
}

/**
 * A coordinator request whose three specialists (child jobs) work 200 ms each, on three workers of
 * concurrency 1: the request's wall time (start to completed, as this bench polls the store) against
 * the slowest specialist's work in that round.
 */
async function specialists(): Promise<{ ratios: number[]; wallMs: number[] }> {
  const pool = Array.from({ length: 3 }, () => new RunWorker({ store, graphs, redisUrl, queueName, sweepEveryMs: 0 }));
  await Promise.all(pool.map((w) => w.start()));
  const ratios: number[] = [];
  const wallMs: number[] = [];
  for (let i = 0; i < SPECIALIST_ROUNDS + 2; i++) {
    worked.clear();
    const started = performance.now();
    await until([await queue.start('bench-desk', 'x')]);
    const wall = performance.now() - started;
    if (worked.size !== 3) throw new Error(`${worked.size} of 3 specialists reported their work`);
    if (i < 2) continue; // warm-up
    ratios.push(wall / Math.max(...worked.values()));
    wallMs.push(wall);
  }
  await Promise.all(pool.map((w) => w.close()));
  return { ratios, wallMs };
}
const SPECIALIST_ROUNDS = Number(process.env.SWITCHBOARD_BENCH_SPECIALIST_ROUNDS ?? 9);

const load = () => loadavg()[0]!.toFixed(1);
const o = await overhead();
const overheadLoad = load();
const rates: Array<[number, number, string]> = [];
for (const n of [1, 2, 4]) rates.push([n, await throughput(n), load()]);
const sp = await specialists();
const specialistLoad = load();
await queue.close();
await store.close();

const markdown = `## Run queue (BullMQ on Redis, runs in PostgreSQL)

Per run, a 3-node graph, ${PAIRS} pairs (load ${overheadLoad}): in process ${o.inProcessMs.toFixed(1)} ms, through the queue and a
worker in the same process ${o.queuedMs.toFixed(1)} ms; median ratio ${o.ratio.toFixed(2)}, median added ${o.addedMs.toFixed(1)} ms
(the queued row and its events, the job's round trip through Redis, the worker's claim, and this
bench's 2 ms polling of the store).

Throughput, ${THROUGHPUT_RUNS} runs of 3 nodes that each wait 50 ms (I/O-bound), workers of concurrency 1:

| workers | runs/s | load |
| --- | --- | --- |
${rates.map(([n, r, l]) => `| ${n} | ${r.toFixed(2)} | ${l} |`).join('\n')}

A coordinator request with three specialists of ${SPECIALIST_MS} ms as child jobs on three workers
(concurrency 1, in this process), ${SPECIALIST_ROUNDS} requests after 2 warm-up ones (load ${specialistLoad}): wall time
${median(sp.wallMs).toFixed(0)} ms (median), **${median(sp.ratios).toFixed(2)}×** the slowest specialist's work in the same
request (median; range ${Math.min(...sp.ratios).toFixed(2)}–${Math.max(...sp.ratios).toFixed(2)}; goal under 1.5×). Worker processes of
their own add nothing to this path once started (test/queue/specialistJobs.test.ts measures it on
three \`switchboard worker\` processes).
`;
console.log(markdown);
writeResultsSection('queue', markdown);
