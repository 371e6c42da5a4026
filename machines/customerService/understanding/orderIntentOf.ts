import type { LabelledMessage } from '../dataset/LabelledMessage.js';

/** What an order question is after: money (a refund, return or cancellation estimate) or the order's state. */
export type OrderIntent = 'refund' | 'status';

/** The two order intents. */
export const ORDER_INTENTS: readonly OrderIntent[] = ['refund', 'status'];

const AMOUNT = /\d+\.\d{2}/;

/**
 * The order intent a labelled message teaches, read from its expected answer: an order question
 * whose answer must state an amount asks about money (`refund`); one whose answer states where the
 * order is asks for its `status`; anything else (a refused or unknown order number, a composite
 * message) teaches neither and gives `undefined`.
 *
 * @example
 * orderIntentOf({ route: 'tool', text: 'Money back for SO20261002?', facts: ['764.15'] }); // 'refund'
 * orderIntentOf({ route: 'tool', text: 'Where is SO20261003?', facts: ['in transit'] }); // 'status'
 */
export function orderIntentOf(message: Pick<LabelledMessage, 'route' | 'facts' | 'text'>): OrderIntent | undefined {
  if (message.route !== 'tool' || message.facts.length === 0) return undefined;
  if (message.facts.some((f) => AMOUNT.test(f))) return 'refund';
  return message.facts.some((f) => /\b(in transit|delivered)\b/i.test(f)) ? 'status' : undefined;
}
