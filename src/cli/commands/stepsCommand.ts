import type { Command } from 'commander';
import { CheckpointManager } from '../../steps/CheckpointManager.js';
import { RunStateError } from '../../errors/RunStateError.js';
import { excerpt } from '../format.js';
import type { CliContext } from '../CliContext.js';
import { retryRun } from '../../steps/retryRun.js';
import { printRun } from './runCommands.js';

/** `steps <runId>` and `retry <runId>`: the steps checkpointingStepRunner recorded, and an operator's retry of a failed run. */
export function addStepsCommands(program: Command, cli: CliContext): void {
  addStepsCommand(program, cli);
  program
    .command('retry <runId>')
    .description('reset the failed steps of a failed run and run it again under the same id, reusing the steps that completed (start it with --checkpoint-steps)')
    .option('--json', 'print JSON')
    .action(async (runId: string, opts: { json?: boolean }) => {
      const runs = await cli.runs();
      const record = await runs.get(runId);
      const { reset, run } = await retryRun(runs.graph(record.graphName), runId, { store: runs.store });
      if (opts.json !== true) cli.out(`reset: ${reset.length === 0 ? '(no failed step was recorded)' : reset.join(', ')}`);
      printRun(cli, run, opts.json === true);
    });
}

/** `steps <runId>`: the steps `checkpointingStepRunner` recorded for a run, with status, attempts and output or error. */
export function addStepsCommand(program: Command, cli: CliContext): void {
  program
    .command('steps <runId>')
    .description('list the steps checkpointingStepRunner recorded for a run (status, attempts, output or error)')
    .option('--json', 'print JSON')
    .action(async (runId: string, opts: { json?: boolean }) => {
      const { store } = await cli.runs();
      const state = await new CheckpointManager(store).getRunState(runId);
      // Step records can outlive (or never have) a stored run; with neither, the id is most likely mistyped.
      if (state.steps.length === 0 && (await store.getRun(runId)) === null) {
        throw new RunStateError(`run not found: ${runId} (no stored run and no step records have this id); list stored runs with \`switchboard runs\``, { code: 'run_not_found', runId });
      }
      if (opts.json) return cli.out(JSON.stringify(state));
      if (state.steps.length === 0) return cli.out(`run ${runId} has no recorded steps (runs record them with checkpointingStepRunner)`);
      const width = Math.max(...state.steps.map((s) => s.key.length));
      for (const s of state.steps) {
        const detail = s.status === 'FAILED' ? `error: ${s.error?.message ?? ''}` : s.status === 'COMPLETED' ? `output: ${JSON.stringify(s.output)}` : '';
        cli.out(`${s.key.padEnd(width)}  ${s.status.padEnd(9)}  attempts ${s.attempts}  ${excerpt(detail, 100)}`);
      }
      const { COMPLETED, FAILED, RUNNING } = state.counts;
      cli.out(`${COMPLETED} completed, ${FAILED} failed, ${RUNNING} running`);
    });
}
