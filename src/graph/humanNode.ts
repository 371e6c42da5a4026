import { z } from 'zod';
import type { AgentNode, AgentRequest, AgentResult } from './AgentNode.js';
import type { WorkflowContext } from './WorkflowContext.js';
import { GraphDefinitionError } from '../errors/GraphDefinitionError.js';
import { checkGraphOptions } from './checkDefinition.js';
import { describeValue } from './describeValue.js';

/** Where a human node's reply goes besides its `replyKey`. */
export type ReplyTo = 'input' | 'state';

/** Options for {@link humanNode}. */
export interface HumanNodeOptions {
  /** Why the run waits: shown in run lists and to the person who replies. Default: "waiting for a human reply". */
  reason?: string | ((ctx: WorkflowContext, request: AgentRequest) => string);
  /** The shared-state key the reply is written to (default `humanReply`). */
  replyKey?: string;
  /**
   * A zod schema the reply must match. With it the reply may be any JSON value (an object, a
   * number…) and what is stored is the schema's parsed value; a reply that does not match is
   * refused with `invalid_reply` before the run moves. Without it the reply is text.
   */
  reply?: z.ZodType;
  /**
   * `input` (default): the reply is also the node's output text, so the next node gets it as its
   * input (a JSON reply as JSON text, the value itself as `rawResponse`). `state`: the reply only
   * goes to `replyKey`; the next node gets the request this node was handed.
   */
  replyTo?: ReplyTo;
}

const HUMAN = Symbol.for('switchboard.humanNode');

/** Every option (typed, so a new option cannot be left out of the unknown-key check). */
const OPTION_KEYS: Record<keyof HumanNodeOptions, true> = { reason: true, replyKey: true, reply: true, replyTo: true };

/** How a reply was judged: the value to store, or what is wrong with it. */
export type ReplyCheck = { ok: true; value: unknown } | { ok: false; problem: string };

/** A node that stops the run in `waiting` until a reply arrives; created by {@link humanNode}. */
export interface HumanNode extends AgentNode {
  readonly [HUMAN]: true;
  readonly reason: NonNullable<HumanNodeOptions['reason']>;
  readonly replyKey: string;
  readonly replyTo: ReplyTo;
  /** The zod schema a reply must match; undefined for a node that takes text. */
  readonly replySchema: z.ZodType | undefined;
  /** Checks a reply against the node's schema (or, without one, that it is text). */
  checkReply(reply: unknown): ReplyCheck;
  /** The node's result for an accepted reply: what routing and the next node see. */
  resultOf(value: unknown): AgentResult;
}

function describeReply(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/**
 * A human-in-the-loop node. When the run reaches it, the run ends its current leg with status
 * `waiting` (and a reason); resuming it with a reply writes the reply to the shared state under
 * `replyKey` and routing continues from this node. By default the reply is also the node's output
 * text (the next node's input); `replyTo: 'state'` keeps the text handed to this node flowing on
 * instead. `reply: schema` accepts JSON replies checked against the schema.
 *
 * @example
 * graph.addNode('human_handoff', humanNode({ reason: (ctx) => `refund dispute on ${ctx.get('orderId')}` }));
 * graph.addNode('approve', humanNode({
 *   reply: z.object({ approved: z.boolean(), note: z.string().optional() }),
 *   replyKey: 'approval',
 *   replyTo: 'state',
 * }));
 */
export function humanNode(options: HumanNodeOptions = {}): HumanNode {
  checkGraphOptions(options, Object.keys(OPTION_KEYS), 'humanNode()');
  const replyKey = options.replyKey ?? 'humanReply';
  if (typeof replyKey !== 'string' || replyKey.trim() === '' || replyKey.startsWith('__')) {
    throw new GraphDefinitionError(`humanNode: replyKey must be a non-blank string not starting with "__"; received ${describeValue(replyKey)}`);
  }
  const reason = options.reason ?? 'waiting for a human reply';
  if (typeof reason !== 'string' && typeof reason !== 'function') {
    throw new GraphDefinitionError('humanNode: reason must be a string or a function (ctx, request) => string');
  }
  const schema = options.reply;
  if (schema !== undefined && typeof (schema as { safeParse?: unknown } | null)?.safeParse !== 'function') {
    throw new GraphDefinitionError('humanNode: reply must be a zod schema (for example z.object({ approved: z.boolean() })); leave it out for text replies');
  }
  const replyTo = options.replyTo ?? 'input';
  if (replyTo !== 'input' && replyTo !== 'state') {
    throw new GraphDefinitionError(`humanNode: replyTo must be 'input' (the next node's input) or 'state' (only replyKey); received ${JSON.stringify(replyTo)}`);
  }
  return {
    [HUMAN]: true,
    name: 'human',
    reason,
    replyKey,
    replyTo,
    replySchema: schema,
    checkReply(reply) {
      if (schema === undefined) {
        return typeof reply === 'string' ? { ok: true, value: reply } : { ok: false, problem: `this node takes a text reply; received ${describeReply(reply)} (declare humanNode({ reply: schema }) to accept JSON)` };
      }
      const parsed = schema.safeParse(reply);
      return parsed.success ? { ok: true, value: parsed.data } : { ok: false, problem: z.prettifyError(parsed.error).replace(/\n+/g, '; ') };
    },
    resultOf(value) {
      if (replyTo === 'state') return { rawResponse: value };
      return typeof value === 'string' ? { outputText: value } : { outputText: JSON.stringify(value), rawResponse: value };
    },
    execute() {
      throw new GraphDefinitionError('a human node waits for a reply and is never executed directly; add it to a StateGraph');
    },
  };
}

/** True for nodes made by {@link humanNode}. */
export function isHumanNode(node: unknown): node is HumanNode {
  return typeof node === 'object' && node !== null && (node as { [HUMAN]?: unknown })[HUMAN] === true;
}
