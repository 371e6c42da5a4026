import type { AgentNode, AgentRequest, NodeEmit, NodeOutput, WorkflowContext } from 'switchboard/engine';

/** A node body that may report progress events (they reach `graph.stream()` consumers as node events). */
export type SpecialistBody = (ctx: WorkflowContext, request: AgentRequest, emit: NodeEmit) => Promise<NodeOutput> | NodeOutput;

const dropEvent: NodeEmit = () => {};

/**
 * Wraps a node body as an `AgentNode`, so one implementation serves `run()` and `stream()`: the
 * body's events reach the run either way (`executeStream` forwards them to `emit`, `execute`
 * reports them through `ctx.report` while anyone listens), so a stored run, a recorder or a trace
 * holds the same tool calls and results however the run was started.
 */
export function specialistNode(name: string, body: SpecialistBody): AgentNode {
  return {
    name,
    execute: (ctx, request) => body(ctx, request, ctx.reporting ? (event) => ctx.report(event) : dropEvent),
    executeStream: (ctx, request, emit) => body(ctx, request, emit),
  };
}
