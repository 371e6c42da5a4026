import { Agent } from './Agent.js';
import { checkAgentNodeOptions, type AgentNodeOptions } from './AgentNodeOptions.js';
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
 * stream path forwards the agent's events as node events and returns the result. `input` and
 * `output` mappers read the agent's input from the state and write its result back.
 */
class AgentNodeWrapper<Out = unknown> implements GraphAgentNode {
  readonly agent: Agent<Out>;
  readonly options: AgentNodeOptions<Out>;

  constructor(agent: Agent<Out>, options: AgentNodeOptions<Out> = {}) {
    if (!(agent instanceof Agent)) {
      throw new AgentDefinitionError('new AgentNode(agent): expected an Agent made with new Agent({ name, instructions, ... })');
    }
    this.agent = agent;
    this.options = checkAgentNodeOptions(`new AgentNode("${agent.name}")`, options);
  }

  /** The agent's name (shown in a `SequentialWorkflow` path). */
  get name(): string {
    return this.agent.name;
  }

  /** Runs a fresh session on the request's input. */
  execute(ctx: WorkflowContext, request: AgentRequest): Promise<AgentRunResult<Out>> {
    return runAsNode(this.agent.newSession(), ctx, request, undefined, this.options);
  }

  /** Streams a fresh session, forwarding its events, and returns its result. */
  executeStream(ctx: WorkflowContext, request: AgentRequest, emit: NodeEmit): Promise<AgentRunResult<Out>> {
    return runAsNode(this.agent.newSession(), ctx, request, emit, this.options);
  }
}

/**
 * `new AgentNode(agent, { input?, output? })`: an agent as a graph node, with a fresh session per
 * execution; the optional mappers read its input from the state and write its result back.
 *
 * @example
 * graph.addNode('weather', new AgentNode(weatherAgent));
 * graph.addNode('review', new AgentNode(reviewer, { input: (ctx) => String(ctx.get('draft')), output: (r) => ({ review: r.output }) }));
 */
export const AgentNode: new <Out = unknown>(agent: Agent<Out>, options?: AgentNodeOptions<Out>) => AgentNodeWrapper<Out> = AgentNodeWrapper;
