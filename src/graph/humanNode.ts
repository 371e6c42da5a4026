import type { AgentNode, AgentRequest } from './AgentNode.js';
import type { WorkflowContext } from './WorkflowContext.js';
import { GraphDefinitionError } from '../errors/GraphDefinitionError.js';

/** Options for {@link humanNode}. */
export interface HumanNodeOptions {
  /** Why the run waits: shown in run lists and to the person who replies. Default: "waiting for a human reply". */
  reason?: string | ((ctx: WorkflowContext, request: AgentRequest) => string);
  /** The shared-state key the reply is written to (default `humanReply`). */
  replyKey?: string;
}

const HUMAN = Symbol.for('switchboard.humanNode');

/** A node that stops the run in `waiting` until a reply arrives; created by {@link humanNode}. */
export interface HumanNode extends AgentNode {
  readonly [HUMAN]: true;
  readonly reason: NonNullable<HumanNodeOptions['reason']>;
  readonly replyKey: string;
}

/**
 * A human-in-the-loop node. When the run reaches it, the run ends its current leg with status
 * `waiting` (and a reason); resuming it with a reply writes the reply to the shared state under
 * `replyKey`, makes the reply the node's output text, and routing continues from this node.
 *
 * @example
 * graph.addNode('human_handoff', humanNode({ reason: (ctx) => `refund dispute on ${ctx.get('orderId')}` }));
 */
export function humanNode(options: HumanNodeOptions = {}): HumanNode {
  const replyKey = options.replyKey ?? 'humanReply';
  if (typeof replyKey !== 'string' || replyKey.trim() === '' || replyKey.startsWith('__')) {
    throw new GraphDefinitionError(`humanNode: replyKey must be a non-blank string not starting with "__"; received ${JSON.stringify(replyKey)}`);
  }
  const reason = options.reason ?? 'waiting for a human reply';
  if (typeof reason !== 'string' && typeof reason !== 'function') {
    throw new GraphDefinitionError('humanNode: reason must be a string or a function (ctx, request) => string');
  }
  return {
    [HUMAN]: true,
    name: 'human',
    reason,
    replyKey,
    execute() {
      throw new GraphDefinitionError('a human node waits for a reply and is never executed directly; add it to a StateGraph');
    },
  };
}

/** True for nodes made by {@link humanNode}. */
export function isHumanNode(node: unknown): node is HumanNode {
  return typeof node === 'object' && node !== null && (node as { [HUMAN]?: unknown })[HUMAN] === true;
}
