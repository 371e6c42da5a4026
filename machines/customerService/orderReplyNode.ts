import type { AgentNode, StateRouter, WorkflowContext } from 'switchboard/engine';
import { ASK_FOR_ORDER } from '../../specialists/orders/askForOrder.js';
import { requestHandoff } from '../../specialists/shared/Handoff.js';
import { readOrderIds } from './understanding/readOrderId.js';

/** The state key the customer's answer to "which order?" is written to. */
export const CUSTOMER_REPLY_KEY = 'customerReply';
/** How many times the desk asks for the order number before a person takes over. */
export const MAX_ORDER_ASKS = 2;

/** Why `ask_order` waits: the question the customer is asked (again, after an answer without a number). */
export function askOrderReason(ctx: WorkflowContext): string {
  const asks = ctx.get<number>('orderAsks') ?? 0;
  return asks === 0 ? ASK_FOR_ORDER : `That did not contain an order number. ${ASK_FOR_ORDER}`;
}

/**
 * `order_reply`: reads the customer's answer to "which order?" (a bare 8-digit number counts here)
 * and, when it names an order, notes it as `orderId` for `tool_plan`, which then continues the
 * run. Counts the asks in `orderAsks`; after {@link MAX_ORDER_ASKS} answers without a number it
 * asks a person to take over.
 */
export function orderReplyNode(): AgentNode {
  return {
    name: 'order_reply',
    execute(ctx) {
      const reply = String(ctx.get(CUSTOMER_REPLY_KEY) ?? '');
      const asks = (ctx.get<number>('orderAsks') ?? 0) + 1;
      ctx.put('orderAsks', asks);
      const orderId = readOrderIds(reply, { expectingOrderId: true })[0]?.value;
      if (orderId !== undefined) {
        ctx.put('orderId', orderId);
      } else if (asks >= MAX_ORDER_ASKS) {
        requestHandoff(ctx, `the customer gave no order number after ${asks} asks`, 'order_reply');
      }
      return null;
    },
  };
}

/** Routes after `order_reply`: `lookup` (an order number arrived), `ask` (ask again) or `handoff`. */
export const orderReplyRouter: StateRouter = (ctx) =>
  typeof ctx.get('orderId') === 'string' ? 'lookup' : (ctx.get<number>('orderAsks') ?? 0) >= MAX_ORDER_ASKS ? 'handoff' : 'ask';
