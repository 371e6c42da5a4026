import type { AgentResult } from '../graph/AgentNode.js';
import type { StateDelta } from '../graph/SharedState.js';

/** One execution of a leaf step (a node) as a step runner sees it. */
export interface StepCall {
  runId: string;
  /** The graph's (or workflow's) name. */
  graph: string;
  nodeId: string;
  /** The 1-based step number within the run. */
  step: number;
  /** `<step>:<nodeId>`: the step's identity when the same run id is run again. */
  key: string;
  /** The step's shared-state writes so far (null: none); read once `execute` has resolved. */
  writes(): StateDelta | null;
  /** Replays writes a recorded execution made, as if this execution had made them. */
  replay(writes: StateDelta | null): void;
}

/**
 * How a leaf step executes: the seam between a workflow's code and where it runs. `run` gets the
 * step and a function that executes it in this process; it may call it, skip it (returning a
 * recorded result), or record around it. The same workflow code runs under every runner.
 * `localStepRunner()` (the default) and `checkpointingStepRunner(store)` are provided.
 */
export interface StepRunner {
  readonly name: string;
  run(call: StepCall, execute: () => Promise<AgentResult | null>): Promise<AgentResult | null>;
}

/**
 * The default step runner: executes each step in this process, as it is. A run given no runner
 * does exactly this without going through one at all, so it costs nothing.
 */
export function localStepRunner(): StepRunner {
  return { name: 'local', run: (_call, execute) => execute() };
}
