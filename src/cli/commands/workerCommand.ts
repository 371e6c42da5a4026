import type { Command } from 'commander';
import type { CliContext } from '../CliContext.js';
import { parseInput } from '../../input/parseInput.js';
import { wholeNumber } from '../../input/wholeNumber.js';
import type { LegOutcome } from '../../queue/advanceRun.js';

/** One line per job: what the worker did with the run. */
function outcomeLine(o: LegOutcome): string {
  if (o.outcome === 'advanced') return `run ${o.runId}: ${o.run.status}${o.run.waiting ? ` (waiting at ${o.run.waiting.nodeId})` : ''}`;
  if (o.outcome === 'held') return `run ${o.runId}: held by ${o.owner ?? 'another worker'}; looked at again later`;
  return `run ${o.runId}: nothing to do (${o.reason})`;
}

/** `worker`: takes run jobs from the queue until SIGTERM / Ctrl-C (the distributed mode); a second signal hands the runs in progress back and exits at once. */
export function addWorkerCommand(program: Command, cli: CliContext): void {
  program
    .command('worker')
    .description('take queued runs and advance them until they end or wait (needs SWITCHBOARD_REDIS_URL and a postgres:// SWITCHBOARD_DATABASE_URL)')
    .option('--concurrency <n>', 'runs advanced at once', '1')
    .option('--lock-ms <ms>', "BullMQ's job lock: a worker that dies gives its jobs back after this", '30000')
    .option('--lease-ms <ms>', "a run's lease in the store: a dead worker's runs on another host continue after this", '30000')
    .option('--sweep-ms <ms>', 'how often to look for runs without a job (0: never)', '30000')
    .action(async (opts: { concurrency: string; lockMs: string; leaseMs: string; sweepMs: string }) => {
      const concurrency = parseInput(wholeNumber(1, 1000, 'the concurrency'), opts.concurrency, '--concurrency');
      const lockMs = parseInput(wholeNumber(100, 3_600_000, 'the lock duration'), opts.lockMs, '--lock-ms');
      const leaseMs = parseInput(wholeNumber(100, 3_600_000, 'the lease'), opts.leaseMs, '--lease-ms');
      const sweepEveryMs = parseInput(wholeNumber(0, 3_600_000, 'the sweep interval'), opts.sweepMs, '--sweep-ms');
      const { checkQueueEnv } = await import('../../queue/queueFromEnv.js');
      const { redisUrl } = checkQueueEnv();
      const runs = await cli.runs();
      const graphs = await cli.graphs();
      const { RunWorker } = await import('../../queue/RunWorker.js');
      const worker = new RunWorker({
        store: runs.store,
        graphs,
        redisUrl,
        ...(process.env.SWITCHBOARD_QUEUE ? { queueName: process.env.SWITCHBOARD_QUEUE } : {}),
        concurrency,
        lockMs,
        leaseMs,
        sweepEveryMs,
        onOutcome: (o) => cli.out(outcomeLine(o)),
        onError: (error) => cli.err(`worker: ${error.message}`),
      });
      await worker.start();
      cli.out(`worker ${worker.owner}: taking runs of ${graphs.map((g) => g.name).join(', ')} (concurrency ${concurrency})`);
      await cli.interrupted();
      cli.out('stopping: finishing the runs in progress (send the signal again to stop at once; they continue elsewhere)');
      let handedBack: string[] | null = null;
      const again = cli.interrupted().then(async () => {
        handedBack = await worker.handBack();
      });
      await Promise.race([worker.close(), again]);
      if (handedBack === null) {
        cli.out('worker stopped');
        return;
      }
      const handed: string[] = handedBack;
      cli.out(`worker stopped at once: handed back ${handed.length} run(s) in progress${handed.length ? ` (${handed.join(', ')})` : ''}; another worker continues them from their last checkpoint`);
      // Their nodes may still be running here: end the process before another worker takes them.
      process.exit(0);
    });
}
