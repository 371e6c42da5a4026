import type { AgentRequest } from './AgentNode.js';
import type { GraphMachine } from './compileMachine.js';
import type { RunOptions } from './RunOptions.js';
import type { WorkflowEvent } from './WorkflowEvent.js';
import type { WorkflowRun } from './WorkflowRun.js';

/** What `StateGraph` and `SequentialWorkflow` have in common; `WorkflowAgent` wraps either. */
export interface RunnableGraph {
  readonly name: string;
  run(input: string | AgentRequest, options?: RunOptions): Promise<WorkflowRun>;
  stream(input: string | AgentRequest, options?: RunOptions): AsyncIterable<WorkflowEvent>;
  toMachine(): GraphMachine;
}
