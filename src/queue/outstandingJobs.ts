import type { Job, Queue } from 'bullmq';
import { runIdsOfJobId, type RunJobData } from './runJob.js';

/** The jobs that will advance a run, as far as BullMQ's lists tell. */
export interface OutstandingJobs {
  /** A job waits to be taken or is held by a worker (alive, or dead and given back by the stalled check). */
  taken: boolean;
  /** Jobs delayed to a later time (a run whose lease another worker held, an attempt's wake). */
  delayed: Job<RunJobData>[];
}

/**
 * The outstanding jobs of each of `runIds` on `queue`: waiting, prioritized, active or delayed. A
 * wait's deadline job is left out (it advances the run only at its deadline), and so is a job
 * waiting for its children (it goes on when they complete, and a run whose specialists all ended
 * may have lost the children that would have woken it). Only the lists' job ids are read for the
 * whole backlog; a job is loaded only when its id names one of `runIds` (see `runIdsOfJobId`), and
 * its data must say so too.
 */
export async function outstandingJobs(queue: Queue<RunJobData>, runIds: ReadonlySet<string>): Promise<Map<string, OutstandingJobs>> {
  const found = new Map<string, OutstandingJobs>();
  const entry = (runId: string) => {
    let e = found.get(runId);
    if (e === undefined) found.set(runId, (e = { taken: false, delayed: [] }));
    return e;
  };
  const ofRuns = async (ids: string[]): Promise<Job<RunJobData>[]> => {
    const named = ids.filter((id) => runIdsOfJobId(id).some((runId) => runIds.has(runId)));
    const jobs = await Promise.all(named.map((id) => queue.getJob(id)));
    return jobs.filter((j): j is Job<RunJobData> => j !== undefined && runIds.has(j.data?.runId) && j.data.deadline === undefined);
  };
  const [ready, later] = await Promise.all([queue.getRanges(['wait', 'prioritized', 'active'], 0, -1), queue.getRanges(['delayed'], 0, -1)]);
  for (const job of await ofRuns(ready)) entry(job.data.runId).taken = true;
  for (const job of await ofRuns(later)) entry(job.data.runId).delayed.push(job);
  return found;
}
