import { ASK_FOR_ORDER } from './askForOrder.js';
import { Order } from './Order.js';
import { RefundEstimate, formatCny } from './refundEstimate.js';
import { orderIdArg, type ToolObservation } from './ToolLoopState.js';

/** The next step of the order loop: one tool call, or a reply to the customer (`ask` when the order number is missing). */
export type OrderStep =
  | { kind: 'call'; name: string; arguments: Record<string, unknown> }
  | { kind: 'answer'; text: string }
  | { kind: 'ask'; text: string };

/** What the customer writes when asking about money back. */
const WANTS_REFUND = /\b(refund\w*|return\w*|money back|how much|cancel\w*|reimburse\w*)\b/i;

/**
 * Whether an order question asks about money back (a refund, return or cancellation) rather than
 * where the order is. The default reads a few keywords; a graph with a learned reading of the
 * customer's wording passes its own.
 */
export type RefundQuestion = (question: string) => boolean;

/** The keyword reading of {@link RefundQuestion}. */
export const asksForRefundByKeywords: RefundQuestion = (question) => WANTS_REFUND.test(question);

/** The order number in a message, uppercased, even a malformed one (`SO123`), so the tool can refuse it clearly. */
export function findOrderId(text: string): string | undefined {
  return /\bSO\d[\w-]*/i.exec(text)?.[0].toUpperCase();
}

export { ASK_FOR_ORDER };

function describeOrder(order: Order): string {
  const head = `Order ${order.orderId} (${order.product}, ${formatCny(order.price)})`;
  if (order.status === 'in_transit') return `${head} is still in transit.`;
  const days = order.daysSinceDelivery ?? 0;
  return `${head} was delivered ${days} day${days === 1 ? '' : 's'} ago and is ${order.opened ? 'opened' : 'unopened'}.`;
}

function failureNote(observations: readonly ToolObservation[]): string {
  const failed = observations.filter((o) => !o.ok);
  if (failed.length === 0) return '';
  const list = failed.map((o) => (o.ok ? '' : `${o.name}: ${o.code.replace(/_/g, ' ')}`)).join('; ');
  return ` (${failed.length} tool call${failed.length === 1 ? '' : 's'} failed along the way and ${failed.length === 1 ? 'was' : 'were'} handled: ${list}.)`;
}

/** The next call for `name` on `orderId`: none yet, or the last one failed retryably → call; failed for good → its error. */
function nextCall(
  name: string,
  orderId: string,
  observations: readonly ToolObservation[],
): { call: boolean; done?: ToolObservation; error?: string; malformed?: boolean } {
  const mine = observations.filter((o) => o.name === name && orderIdArg(o.arguments) === orderId);
  const done = mine.find((o) => o.ok);
  if (done !== undefined) return { call: false, done };
  const last = mine.at(-1);
  if (last === undefined || (!last.ok && last.retryable)) return { call: true };
  return last.ok ? { call: false } : { call: false, error: last.error, malformed: last.code === 'invalid_tool_arguments' };
}

/**
 * The deterministic order planner (the `tool_plan` offline rule): no order number → ask for it;
 * then `lookup_order`, then — when the customer asks about a refund, return or cancellation —
 * `calculate_refund`, retrying a call that failed retryably (a timeout); finally an answer that
 * states the amount and that it is an estimate. A refused order number ends in an answer that
 * says why. `asksForRefund` decides whether the question is about money back (default: keywords).
 *
 * @example
 * planOrderStep('Check order SO20261001 and see how much can be refunded.', []);
 * // { kind: 'call', name: 'lookup_order', arguments: { orderId: 'SO20261001' } }
 */
export function planOrderStep(
  question: string,
  observations: readonly ToolObservation[],
  orderIdHint?: string,
  asksForRefund: RefundQuestion = asksForRefundByKeywords,
): OrderStep {
  const orderId = orderIdHint ?? findOrderId(question);
  if (orderId === undefined) return { kind: 'ask', text: ASK_FOR_ORDER };
  const lookup = nextCall('lookup_order', orderId, observations);
  if (lookup.call) return { kind: 'call', name: 'lookup_order', arguments: { orderId } };
  if (lookup.malformed) {
    return { kind: 'answer', text: `The order number ${orderId} is not valid: an order number is SO followed by 8 digits, e.g. SO20261001. Please check it and send it again.` };
  }
  const order = Order.safeParse(lookup.done?.ok ? lookup.done.output : undefined);
  if (!order.success) return { kind: 'answer', text: `I could not look up order ${orderId}: ${lookup.error ?? 'the lookup returned no order'}.` };
  if (!asksForRefund(question)) return { kind: 'answer', text: `${describeOrder(order.data)}${failureNote(observations)}` };
  const refund = nextCall('calculate_refund', orderId, observations);
  if (refund.call) return { kind: 'call', name: 'calculate_refund', arguments: { orderId } };
  const estimate = RefundEstimate.safeParse(refund.done?.ok ? refund.done.output : undefined);
  if (!estimate.success) {
    return { kind: 'answer', text: `${describeOrder(order.data)} I could not calculate the refund: ${refund.error ?? 'no estimate was returned'}.` };
  }
  const e = estimate.data;
  return {
    kind: 'answer',
    text:
      `${describeOrder(order.data)} Estimated refund: ${formatCny(e.refund)} (${e.explanation}). ` +
      `This is an estimate; the final amount is confirmed after the returned product is inspected.${failureNote(observations)}`,
  };
}
