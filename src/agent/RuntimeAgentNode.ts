import { checkAgentNodeOptions, type AgentNodeOptions } from './AgentNodeOptions.js';
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
 * `AgentRunError`. `input` and `output` mappers work as on `AgentNode`.
 *
 * @example
 * graph.addNode('router', new RuntimeAgentNode(routerAgent.newSession()));
 */
export class RuntimeAgentNode<Out = unknown> implements AgentNode {
  readonly session: AgentSession<Out>;
  readonly options: AgentNodeOptions<Out>;
  /** The result of the node's last execution. */
  lastResult: AgentRunResult<Out> | null = null;

  constructor(session: AgentSession<Out>, options: AgentNodeOptions<Out> = {}) {
    if (!(session instanceof AgentSession)) {
      throw new AgentDefinitionError('new RuntimeAgentNode(session): expected an AgentSession from agent.newSession()');
    }
    this.session = session;
    this.options = checkAgentNodeOptions(`new RuntimeAgentNode("${session.agent.name}")`, options);
  }

  /** The agent's name (shown in a `SequentialWorkflow` path). */
  get name(): string {
    return this.session.agent.name;
  }

  /** Runs the session on the request's input. */
  async execute(ctx: WorkflowContext, request: AgentRequest): Promise<AgentRunResult<Out>> {
    this.lastResult = await runAsNode(this.session, ctx, request, undefined, this.options);
    return this.lastResult;
  }

  /** Streams the session, forwarding its events, and returns its result. */
  async executeStream(ctx: WorkflowContext, request: AgentRequest, emit: NodeEmit): Promise<AgentRunResult<Out>> {
    this.lastResult = await runAsNode(this.session, ctx, request, emit, this.options);
    return this.lastResult;
  }
}
