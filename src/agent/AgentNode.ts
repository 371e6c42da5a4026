import { Agent } from './Agent.js';
import type { AgentRunResult } from './AgentRunResult.js';
import { runAsNode } from './runAsNode.js';
import type { AgentNode as GraphAgentNode, AgentRequest, NodeEmit } from '../graph/AgentNode.js';
import type { WorkflowContext } from '../graph/WorkflowContext.js';
import { AgentDefinitionError } from '../errors/AgentDefinitionError.js';

/**
 * The node contract: an object with `execute(ctx, request)` and optional
 * `executeStream(ctx, request, emit)`. As a value, `new AgentNode(agent)` wraps an agent as such a node.
 */
export type AgentNode = GraphAgentNode;

/**
 * Wraps an `Agent` as a graph node that starts a fresh session for every execution, so nothing is
 * remembered between runs or visits (use `RuntimeAgentNode` to keep one session's memory). Its
 * stream path forwards the agent's events as node events and returns the result.
 */
class AgentNodeWrapper implements GraphAgentNode {
  readonly agent: Agent;

  constructor(agent: Agent) {
    if (!(agent instanceof Agent)) {
      throw new AgentDefinitionError('new AgentNode(agent): expected an Agent made with new Agent({ name, instructions, ... })');
    }
    this.agent = agent;
  }

  /** The agent's name (shown in a `SequentialWorkflow` path). */
  get name(): string {
    return this.agent.name;
  }

  /** Runs a fresh session on the request's input. */
  execute(ctx: WorkflowContext, request: AgentRequest): Promise<AgentRunResult> {
    return runAsNode(this.agent.newSession(), ctx, request);
  }

  /** Streams a fresh session, forwarding its events, and returns its result. */
  executeStream(ctx: WorkflowContext, request: AgentRequest, emit: NodeEmit): Promise<AgentRunResult> {
    return runAsNode(this.agent.newSession(), ctx, request, emit);
  }
}

/**
 * `new AgentNode(agent)`: an agent as a graph node, with a fresh session per execution.
 *
 * @example
 * graph.addNode('weather', new AgentNode(weatherAgent));
 */
export const AgentNode: new (agent: Agent) => AgentNodeWrapper = AgentNodeWrapper;
