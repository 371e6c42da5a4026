import type { AgentNode, AgentRequest, AgentResult, NodeEmit } from './AgentNode.js';
import type { RunOptions } from './RunOptions.js';
import type { RunnableGraph } from './RunnableGraph.js';
import type { WorkflowContext } from './WorkflowContext.js';
import type { WorkflowEvent } from './WorkflowEvent.js';
import type { WorkflowRun } from './WorkflowRun.js';
import { SwitchboardError } from '../errors/SwitchboardError.js';
import { WorkflowCancelledError } from '../errors/WorkflowCancelledError.js';
import { MODEL_NAMES, RUN_MODEL_KEY, startedModel } from './modelNode.js';

/** Turns a finished run into the agent's answer: the last result, or the reason there is none. */
function settle(run: WorkflowRun): AgentResult | null {
  switch (run.status) {
    case 'completed':
    case 'max-steps':
    case 'aborted':
    case 'budget-exceeded':
      return run.result;
    case 'failed':
      throw run.error;
    case 'cancelled':
      throw new WorkflowCancelledError(run.runId);
    case 'waiting':
      throw new SwitchboardError(`run ${run.runId} is waiting for a human reply; resume it to get its result`, {
        code: 'run_waiting',
        retryable: true,
      });
  }
}

/**
 * A workflow used as an agent: `run(input)` resolves to the workflow's last result, and since it is
 * also an `AgentNode`, a whole workflow can be a node of another graph.
 *
 * @example
 * const agent = new WorkflowAgent(graph);
 * const result = await agent.run('it is cold'); // result?.outputText
 */
export class WorkflowAgent implements AgentNode {
  readonly workflow: RunnableGraph;
  readonly session: unknown;

  constructor(workflow: RunnableGraph, session?: unknown) {
    this.workflow = workflow;
    this.session = session;
  }

  /** The wrapped workflow's name. */
  get name(): string {
    return this.workflow.name;
  }

  /**
   * The wrapped workflow's models, so a graph with this agent as a node offers them: the node hands
   * its request (and so the run's chosen model, `metadata.model`) to the workflow's run.
   */
  get [MODEL_NAMES](): readonly string[] {
    return this.workflow.models ?? [];
  }

  /**
   * The request for the workflow's run, on the outer run's model: the one recorded in its state
   * (`runModel`) wins; else the one it was started with (`metadata.model`), recorded there as a
   * `modelNode` does, so the outer run (and a resumed one) says which model it ran on.
   */
  #onRunModel(ctx: WorkflowContext, request: AgentRequest): AgentRequest {
    if ((this.workflow.models ?? []).length === 0) return request;
    const chosen = ctx.get(RUN_MODEL_KEY);
    if (typeof chosen === 'string') return startedModel(request) === chosen ? request : { ...request, metadata: { ...request.metadata, model: chosen } };
    const asked = startedModel(request);
    if (asked !== undefined) ctx.put(RUN_MODEL_KEY, asked);
    return request;
  }

  /**
   * Resolves to the last result for `completed`, `max-steps` and `aborted` runs; rejects with `run.error` for
   * `failed` and with an `AbortError` for `cancelled`.
   */
  async run(input: string | AgentRequest, options: RunOptions = {}): Promise<AgentResult | null> {
    return settle(await this.workflow.run(input, this.#options(options)));
  }

  /** The workflow's events; the last one is `run.completed`. */
  stream(input: string | AgentRequest, options: RunOptions = {}): AsyncIterable<WorkflowEvent> {
    return this.workflow.stream(input, this.#options(options));
  }

  /**
   * As a node: runs the workflow with the outer node's signal and session. While someone listens to
   * the outer run, the inner run's events are reported as `workflow.event` events, as in
   * {@link executeStream}: what a run records does not depend on whether it was run or streamed.
   */
  execute(ctx: WorkflowContext, given: AgentRequest): Promise<AgentResult | null> {
    const request = this.#onRunModel(ctx, given);
    const options: RunOptions = { signal: ctx.signal, session: this.session ?? ctx.session };
    if (!ctx.reporting) return this.run(request, options);
    return this.run(request, {
      ...options,
      onEvent: (event) => {
        if (event.type !== 'run.completed') ctx.report({ type: 'workflow.event', workflow: this.workflow.name, event });
      },
    });
  }

  /** As a streaming node: forwards the inner run's events as `workflow.event` events. */
  async executeStream(ctx: WorkflowContext, given: AgentRequest, emit: NodeEmit): Promise<AgentResult | null> {
    const request = this.#onRunModel(ctx, given);
    let last: WorkflowRun | null = null;
    for await (const event of this.stream(request, { signal: ctx.signal, session: this.session ?? ctx.session })) {
      if (event.type === 'run.completed') last = (event as { run: WorkflowRun }).run;
      else emit({ type: 'workflow.event', workflow: this.workflow.name, event });
    }
    return settle(last!);
  }

  #options(options: RunOptions): RunOptions {
    return this.session === undefined || options.session !== undefined ? options : { ...options, session: this.session };
  }
}
