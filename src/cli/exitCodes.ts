import type { RunStatus } from '../graph/WorkflowRun.js';

/**
 * The exit codes of the `switchboard` command: 0 the run completed (or the command did its job),
 * 1 the run failed, was cancelled, was aborted by a workflow step (its answer is still printed),
 * tripped its step fuse or spent a budget (or the command failed), 2 the command
 * line was wrong (a bad flag or input; nothing was stored), 3 the run waits for a person.
 */
export const EXIT = { ok: 0, failed: 1, usage: 2, waiting: 3 } as const;

/** The exit code for a run that ended (or stopped) with `status`. */
export function exitCodeFor(status: RunStatus): number {
  switch (status) {
    case 'completed':
      return EXIT.ok;
    case 'waiting':
      return EXIT.waiting;
    case 'failed':
    case 'cancelled':
    case 'max-steps':
    case 'aborted':
    case 'budget-exceeded':
      return EXIT.failed;
  }
}

/** What `--help` says about exit codes. */
export const EXIT_CODES_HELP = `
Exit codes:
  0  the run completed (other commands: did their job)
  1  the run failed, was cancelled, was aborted by a workflow step, reached its step
     limit or spent a budget; or the command failed
     (scenarios: a scenario ended other than as expected)
  2  usage error: an unknown command or option, a bad value, an unreadable --image or
     --graphs module (nothing is stored)
  3  the run waits for a person (resume it with: switchboard resume <runId> --reply <text>)`;
