import type { RunRecord } from '../persistence/RunStore.js';

/** The name of every run job (BullMQ's job name). */
export const RUN_JOB = 'run';

/** What a run job carries: only the run id; the store holds everything else. */
export interface RunJobData {
  runId: string;
  /** A delayed job that times out a wait: the wait's deadline (epoch ms), as the run's graph reports it. */
  deadline?: number;
}

/**
 * Every job of a run is named by its run id, alone or followed by "." or ":" and more (see
 * {@link jobIdFor}, {@link deadlineJobIdFor}, the specialist and wake jobs of `RunQueue`), so the
 * run a job id may belong to is the id itself or a part of it before a "." or ":": those are the
 * candidates, longest first (a run id may contain "." and a specialist's contains ":"). A new kind
 * of job id must keep that rule, or the sweep does not see its jobs.
 */
export function runIdsOfJobId(jobId: string): string[] {
  const candidates = [jobId];
  for (let i = jobId.length - 1; i > 0; i--) if (jobId[i] === '.' || jobId[i] === ':') candidates.push(jobId.slice(0, i));
  return candidates;
}

/**
 * A run job's id: the run id for a queued run's first leg, the run id and the row's version after
 * that (a reply, a recovery). A job added twice for the same row is added once; a job for a row
 * that moved on finds nothing to do.
 */
export function jobIdFor(record: Pick<RunRecord, 'runId' | 'status' | 'version'>): string {
  return record.status === 'queued' ? record.runId : `${record.runId}.v${record.version}`;
}

/** The id of the delayed job that times out the wait a run is at: one per wait (its step) and deadline. */
export function deadlineJobIdFor(runId: string, waitStep: number, deadline: number): string {
  return `${runId}.t${waitStep}.${deadline}`;
}
