import type { AgentNode, AgentRequest, NodeEmit, NodeOutput, WorkflowContext } from 'switchboard';

/** A node body that may report progress events (they reach `graph.stream()` consumers as node events). */
export type SpecialistBody = (ctx: WorkflowContext, request: AgentRequest, emit: NodeEmit) => Promise<NodeOutput> | NodeOutput;

/**
 * Wraps a node body as an `AgentNode` whose `execute` drops the events and whose `executeStream`
 * forwards them, so one implementation serves `run()` and `stream()`.
 */
export function specialistNode(name: string, body: SpecialistBody): AgentNode {
  return {
    name,
    execute: (ctx, request) => body(ctx, request, () => {}),
    executeStream: (ctx, request, emit) => body(ctx, request, emit),
  };
}
