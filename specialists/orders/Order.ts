import { z } from 'zod';

/** An order number: `SO` followed by 8 digits, e.g. `SO20261001`. */
export const OrderId = z.string().regex(/^SO\d{8}$/, 'an order number is "SO" followed by 8 digits, e.g. SO20261001');
/** An order number (see {@link OrderId}). */
export type OrderId = z.infer<typeof OrderId>;

/** An order as `lookup_order` returns it; prices are in CNY. */
export const Order = z.object({
  orderId: OrderId,
  product: z.string(),
  price: z.number().nonnegative(),
  currency: z.literal('CNY'),
  status: z.enum(['in_transit', 'delivered']),
  /** ISO time of delivery; null while in transit. */
  deliveredAt: z.iso.datetime().nullable(),
  /** Whole days since delivery; null while in transit. */
  daysSinceDelivery: z.number().int().nonnegative().nullable(),
  opened: z.boolean(),
});
/** An order (see {@link Order}). */
export type Order = z.infer<typeof Order>;

const DAY_MS = 86_400_000;

/** The five orders of the demo shop, with delivery age in days before "now". */
const FIXTURES = [
  { orderId: 'SO20261001', product: 'Aero Headphones', price: 599, deliveredDaysAgo: 3, opened: false },
  { orderId: 'SO20261002', product: 'Aero Earbuds Pro', price: 899, deliveredDaysAgo: 5, opened: true },
  { orderId: 'SO20261003', product: 'Aero Speaker Mini', price: 349, deliveredDaysAgo: null, opened: false },
  { orderId: 'SO20261004', product: 'Aero Headphones', price: 599, deliveredDaysAgo: 21, opened: false },
  { orderId: 'SO20261005', product: 'Charging Case', price: 129, deliveredDaysAgo: 1, opened: false },
] as const;

/**
 * The demo orders as seen at time `now` (ms since the epoch): SO20261001 Aero Headphones 599.00
 * delivered 3 days ago unopened; SO20261002 Aero Earbuds Pro 899.00 delivered 5 days ago opened;
 * SO20261003 Aero Speaker Mini 349.00 in transit; SO20261004 Aero Headphones 599.00 delivered 21
 * days ago; SO20261005 Charging Case 129.00 delivered 1 day ago unopened.
 *
 * @example
 * orderFixtures(Date.now()).find((o) => o.orderId === 'SO20261003')?.status; // 'in_transit'
 */
export function orderFixtures(now: number): Order[] {
  return FIXTURES.map((f) =>
    Order.parse({
      orderId: f.orderId,
      product: f.product,
      price: f.price,
      currency: 'CNY',
      status: f.deliveredDaysAgo === null ? 'in_transit' : 'delivered',
      deliveredAt: f.deliveredDaysAgo === null ? null : new Date(now - f.deliveredDaysAgo * DAY_MS).toISOString(),
      daysSinceDelivery: f.deliveredDaysAgo,
      opened: f.opened,
    }),
  );
}
