import type { AgentRequest } from './AgentNode.js';
import type { GraphMachine } from './compileMachine.js';
import { runDurable } from './durable/runDurable.js';
import { executeRun } from './executeRun.js';
import type { RunOptions } from './RunOptions.js';
import type { WorkflowRun } from './WorkflowRun.js';

/** Runs in memory, or stored (checkpointed after every node) when `options.store` is given. */
export function startRun(machine: GraphMachine, input: string | AgentRequest, options: RunOptions, streaming: boolean): Promise<WorkflowRun> {
  return options.store === undefined
    ? executeRun(machine, input, options, streaming)
    : runDurable(machine, input, { ...options, store: options.store }, streaming);
}
