import { Queue } from 'bullmq';
import type { RunStore } from '../../src/persistence/RunStore.js';
import { RunQueue } from '../../src/queue/RunQueue.js';
import { RunWorker, type RunWorkerOptions } from '../../src/queue/RunWorker.js';

/** What {@link startWorkerSet} made: the run queue, the raw BullMQ queue beside it (to look at jobs) and the started worker. */
export interface WorkerSet {
  queue: RunQueue;
  bull: Queue;
  worker: RunWorker;
}

/**
 * A `RunQueue` named `name` over `store` and `graphs`, the BullMQ `Queue` of the same name and one
 * started `RunWorker` (concurrency 2, lock 2 s, lease 4 s, no sweeps unless `options` say
 * otherwise), each pushed on `closers` so a test's afterAll closes them, the worker first.
 */
export async function startWorkerSet(
  redisUrl: string,
  store: RunStore,
  graphs: RunWorkerOptions['graphs'],
  name: string,
  closers: Array<() => Promise<void>>,
  options: Partial<RunWorkerOptions> = {},
): Promise<WorkerSet> {
  const queue = new RunQueue({ store, graphs, redisUrl, queueName: name });
  const bull = new Queue(name, { connection: { url: redisUrl } });
  closers.push(() => queue.close(), () => bull.close());
  const worker = new RunWorker({ store, graphs, redisUrl, queueName: name, concurrency: 2, lockMs: 2000, leaseMs: 4000, sweepEveryMs: 0, ...options });
  closers.push(() => worker.close(true));
  await worker.start();
  return { queue, bull, worker };
}

/** True when the queue holds no job waiting, active, delayed, waiting for children or prioritized. */
export async function noJobsLeft(bull: Queue): Promise<boolean> {
  const counts = await bull.getJobCounts('wait', 'active', 'delayed', 'waiting-children', 'prioritized');
  return Object.values(counts).every((n) => n === 0);
}
