import { z } from 'zod';
import { OrderId, type Order } from './Order.js';

/** Which refund rule applied. */
export const RefundRule = z.enum(['cancellation', 'full_refund', 'restocking_fee', 'warranty_only']);
/** Which refund rule applied (see {@link RefundRule}). */
export type RefundRule = z.infer<typeof RefundRule>;

/** What `calculate_refund` returns: always an estimate, in CNY. */
export const RefundEstimate = z.object({
  orderId: OrderId,
  product: z.string(),
  price: z.number(),
  refund: z.number().nonnegative(),
  currency: z.literal('CNY'),
  rule: RefundRule,
  explanation: z.string(),
  estimate: z.literal(true),
});
/** What `calculate_refund` returns (see {@link RefundEstimate}). */
export type RefundEstimate = z.infer<typeof RefundEstimate>;

/** Days after delivery within which a product can be returned. */
export const RETURN_WINDOW_DAYS = 7;
/** The restocking fee on an opened product returned within the window. */
export const RESTOCKING_FEE = 0.15;

/** `599` → `'599.00 CNY'`. */
export const formatCny = (amount: number): string => `${amount.toFixed(2)} CNY`;

/**
 * The refund rule: in transit → the full price (cancellation); delivered at most 7 days ago and
 * unopened → the full price; at most 7 days and opened → the price minus 15%; after 7 days → 0
 * (warranty only). Amounts are computed in cents.
 *
 * @example
 * refundEstimate(orderFixtures(now)[1]!).refund; // 764.15 (899.00 minus 15%)
 */
export function refundEstimate(order: Order): RefundEstimate {
  const cents = Math.round(order.price * 100);
  const days = order.daysSinceDelivery ?? 0;
  let rule: RefundRule;
  let refundCents: number;
  let explanation: string;
  if (order.status === 'in_transit') {
    rule = 'cancellation';
    refundCents = cents;
    explanation = `the order is still in transit, so it can be cancelled for the full price`;
  } else if (days <= RETURN_WINDOW_DAYS && !order.opened) {
    rule = 'full_refund';
    refundCents = cents;
    explanation = `delivered ${days} day${days === 1 ? '' : 's'} ago and unopened, within the ${RETURN_WINDOW_DAYS}-day return window: a full refund`;
  } else if (days <= RETURN_WINDOW_DAYS) {
    rule = 'restocking_fee';
    refundCents = cents - Math.round(cents * RESTOCKING_FEE);
    explanation = `delivered ${days} day${days === 1 ? '' : 's'} ago and opened, within the ${RETURN_WINDOW_DAYS}-day return window: the price minus a 15% restocking fee`;
  } else {
    rule = 'warranty_only';
    refundCents = 0;
    explanation = `delivered ${days} days ago, past the ${RETURN_WINDOW_DAYS}-day return window: no refund, the product is covered by the warranty only`;
  }
  return RefundEstimate.parse({
    orderId: order.orderId,
    product: order.product,
    price: order.price,
    refund: refundCents / 100,
    currency: 'CNY',
    rule,
    explanation,
    estimate: true,
  });
}
