/**
 * What a queue sweep reads from Redis to find the outstanding jobs of the runs needing one, with
 * a backlog of other runs' jobs: `outstandingJobs` (the lists' job ids, then only the jobs whose
 * ids name those runs) against loading every waiting, active and delayed job (what it did before),
 * side by side in one process, alternating the order. Needs Redis (SWITCHBOARD_REDIS_URL, default
 * redis://127.0.0.1:6379); prints the median times and their ratio.
 *
 *   npx tsx --conditions=switchboard-source bench/sweepJobs.bench.ts
 */
import { loadavg } from 'node:os';
import { Queue, type Job } from 'bullmq';
import { outstandingJobs } from '../src/queue/outstandingJobs.js';
import type { RunJobData } from '../src/queue/runJob.js';
import { median, timeOnce } from './measure.js';

const BACKLOG = Number(process.env.SWITCHBOARD_BENCH_BACKLOG ?? 5000);
const ROUNDS = Number(process.env.SWITCHBOARD_BENCH_ROUNDS ?? 15);
const redisUrl = process.env.SWITCHBOARD_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** Every waiting, prioritized, active and delayed job loaded, then filtered by run: the sweep before. */
async function loadingEveryJob(queue: Queue<RunJobData>, runIds: ReadonlySet<string>): Promise<number> {
  const ofRuns = (jobs: (Job<RunJobData> | undefined)[]) => jobs.filter((j) => j !== undefined && runIds.has(j.data?.runId) && j.data.deadline === undefined);
  return ofRuns(await queue.getJobs(['wait', 'prioritized', 'active'], 0, -1)).length + ofRuns(await queue.getJobs(['delayed'], 0, -1)).length;
}

const queue = new Queue<RunJobData>(`bench-sweep-${process.pid}`, { connection: { url: redisUrl } });
try {
  // Half the backlog waits to be taken, half are deadline jobs delayed for later; 10 runs need a job, 5 of them have one.
  const jobs = Array.from({ length: BACKLOG }, (_, i) =>
    i % 2 === 0
      ? { name: 'run', data: { runId: `other-${i}` }, opts: { jobId: `other-${i}.v3` } }
      : { name: 'run', data: { runId: `waits-${i}`, deadline: Date.now() + 3_600_000 }, opts: { jobId: `waits-${i}.t2.9`, delay: 3_600_000 } },
  );
  for (let i = 0; i < jobs.length; i += 500) await queue.addBulk(jobs.slice(i, i + 500));
  const needing = new Set(Array.from({ length: 10 }, (_, i) => `needs-${i}`));
  for (let i = 0; i < 5; i++) await queue.add('run', { runId: `needs-${i}` }, { jobId: `needs-${i}.v2` });
  const before: number[] = [];
  const now: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const pair = [async () => before.push(await timeOnce(() => loadingEveryJob(queue, needing))), async () => now.push(await timeOnce(() => outstandingJobs(queue, needing)))];
    if (round % 2 === 1) pair.reverse();
    for (const measure of pair) await measure();
  }
  const found = await outstandingJobs(queue, needing);
  if ([...found.values()].filter((j) => j.taken).length !== 5 || (await loadingEveryJob(queue, needing)) !== 5) throw new Error('the two ways disagree');
  const [b, n] = [median(before), median(now)];
  console.log(`backlog ${BACKLOG} jobs, 10 runs needing one, ${ROUNDS} rounds, load ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  console.log(`every job loaded: ${b.toFixed(1)} ms   ids, then the needing runs' jobs: ${n.toFixed(1)} ms   ratio ${(n / b).toFixed(3)}`);
} finally {
  await queue.obliterate({ force: true });
  await queue.close();
}
