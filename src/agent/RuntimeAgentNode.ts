import type { AgentRunResult } from './AgentRunResult.js';
import { AgentSession } from './AgentSession.js';
import { runAsNode } from './runAsNode.js';
import type { AgentNode, AgentRequest, NodeEmit } from '../graph/AgentNode.js';
import type { WorkflowContext } from '../graph/WorkflowContext.js';
import { AgentDefinitionError } from '../errors/AgentDefinitionError.js';

/**
 * A graph node that runs one `AgentSession` (ai4j's `RuntimeAgentNode`): the session's memory carries
 * over between the node's executions. In `graph.stream()` the agent's events (`model.delta`,
 * `tool.call`, …) are forwarded as node events and the node still returns the agent's result.
 * A run that does not complete (`max-iterations`, `failed`, `cancelled`) fails the node with an
 * `AgentRunError`.
 *
 * @example
 * graph.addNode('router', new RuntimeAgentNode(routerAgent.newSession()));
 */
export class RuntimeAgentNode implements AgentNode {
  readonly session: AgentSession;
  /** The result of the node's last execution. */
  lastResult: AgentRunResult | null = null;

  constructor(session: AgentSession) {
    if (!(session instanceof AgentSession)) {
      throw new AgentDefinitionError('new RuntimeAgentNode(session): expected an AgentSession from agent.newSession()');
    }
    this.session = session;
  }

  /** The agent's name (shown in a `SequentialWorkflow` path). */
  get name(): string {
    return this.session.agent.name;
  }

  /** Runs the session on the request's input. */
  async execute(ctx: WorkflowContext, request: AgentRequest): Promise<AgentRunResult> {
    this.lastResult = await runAsNode(this.session, ctx, request);
    return this.lastResult;
  }

  /** Streams the session, forwarding its events, and returns its result. */
  async executeStream(ctx: WorkflowContext, request: AgentRequest, emit: NodeEmit): Promise<AgentRunResult> {
    this.lastResult = await runAsNode(this.session, ctx, request, emit);
    return this.lastResult;
  }
}
