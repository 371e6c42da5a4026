import type { AgentRequest } from '../graph/AgentNode.js';
import type { GraphMachine } from '../graph/compileMachine.js';
import type { RunOptions } from '../graph/RunOptions.js';
import type { RunnableGraph } from '../graph/RunnableGraph.js';
import { startRun } from '../graph/startRun.js';
import { streamRun } from '../graph/streamRun.js';
import { deadlineOptions, engineOptions } from './runWorkflow.js';
import type { CompiledWorkflow } from './compileWorkflow.js';
import { waitDeadline, watchDeadline, type DeadlineOptions } from './watchDeadline.js';

/** A run's input as the workflow's input: text as it is, a request's `input`. */
const inputOf = (input: string | AgentRequest): unknown => (typeof input === 'string' ? input : input?.input);

/** Graph run options as workflow run options: the initial shared state becomes the initial context. */
function workflowOptions(options: RunOptions = {}) {
  const { state, ...rest } = options;
  return state === undefined ? rest : { ...rest, context: state as Record<string, unknown> };
}

/**
 * A typed workflow seen as a graph: `run` and `stream` take text or a request (its `input` is the
 * workflow's input) and the graph run options (`state` is the initial context), and resolve to the
 * engine's `WorkflowRun` (the output is `result.handoff`, shown as `outputText`: text, or JSON for a
 * structured value). What the CLI, the workbench and a `RunManager` run a workflow by.
 */
export function workflowAsGraph(name: string, machine: () => GraphMachine, compiled: () => CompiledWorkflow): RunnableGraph {
  const watchWait = (runId: string, options: DeadlineOptions) => void watchDeadline(compiled(), machine(), runId, options).catch(() => undefined);
  return {
    name,
    async run(input, options) {
      const { request, options: engine } = engineOptions(name, inputOf(input), workflowOptions(options));
      const run = await startRun(machine(), request, engine, false);
      if (run.status === 'waiting') watchWait(run.runId, deadlineOptions(options ?? {}));
      return run;
    },
    stream(input, options) {
      const { request, options: engine } = engineOptions(name, inputOf(input), workflowOptions(options));
      return streamRun(async (i, o, l) => {
        const run = await startRun(machine(), i, o, true, l);
        if (run.status === 'waiting') watchWait(run.runId, deadlineOptions(options ?? {}));
        return run;
      }, request, engine);
    },
    toMachine: machine,
    watchWait,
    waitDeadline: (record) => waitDeadline(compiled(), machine(), record),
  };
}
