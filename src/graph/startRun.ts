import type { AgentRequest } from './AgentNode.js';
import { specOf, type GraphMachine } from './compileMachine.js';
import { runDurable } from './durable/runDurable.js';
import { executeRun } from './executeRun.js';
import type { RunOptions } from './RunOptions.js';
import type { WorkflowEvent } from './WorkflowEvent.js';
import type { WorkflowRun } from './WorkflowRun.js';
import { checkOptionKeys, checkRunOptions } from './checkRunOptions.js';

/**
 * Runs in memory, or stored (checkpointed after every node) when `options.store` is given.
 * `listener` is the engine's own (a stream's channel): it gets every event after `onEvent`.
 */
export function startRun(
  machine: GraphMachine,
  input: string | AgentRequest,
  options: RunOptions,
  streaming: boolean,
  listener?: (event: WorkflowEvent) => void,
): Promise<WorkflowRun> {
  checkRunOptions(options);
  checkOptionKeys(options);
  // The initial state is checked like any write, before anything runs or is stored.
  if (options.state !== undefined) options = { ...options, state: specOf(machine).state.initial(options.state) };
  return options.store === undefined
    ? executeRun(machine, input, options, streaming, listener)
    : runDurable(machine, input, { ...options, store: options.store }, streaming, listener);
}
