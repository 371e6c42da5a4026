import { describe, expect, it } from 'vitest';
import { ToolError } from 'switchboard';
import { OrderId, RefundEstimate, createOrderTools, orderFixtures, refundEstimate } from '../../../specialists/index.js';

const NOW = Date.parse('2026-10-10T08:00:00Z');
const DAY = 86_400_000;
const clock = { now: () => NOW };
const ctx = { signal: new AbortController().signal, agent: 'test', callId: 'c1', iteration: 1, depth: 0, workflow: undefined, emit: () => {} };

describe('order fixtures', () => {
  it('hold the five demo orders with delivery age relative to now', () => {
    const orders = orderFixtures(NOW);
    expect(orders.map((o) => [o.orderId, o.product, o.price, o.status, o.daysSinceDelivery])).toEqual([
      ['SO20261001', 'Aero Headphones', 599, 'delivered', 3],
      ['SO20261002', 'Aero Earbuds Pro', 899, 'delivered', 5],
      ['SO20261003', 'Aero Speaker Mini', 349, 'in_transit', null],
      ['SO20261004', 'Aero Headphones', 599, 'delivered', 21],
      ['SO20261005', 'Charging Case', 129, 'delivered', 1],
    ]);
    expect(orders[0]!.deliveredAt).toBe(new Date(NOW - 3 * DAY).toISOString());
    expect(orders.map((o) => o.opened)).toEqual([false, true, false, false, false]);
    expect(new Set(orders.map((o) => o.currency))).toEqual(new Set(['CNY']));
  });

  it('move with the injected clock', () => {
    expect(orderFixtures(NOW + DAY)[0]!.deliveredAt).toBe(new Date(NOW - 2 * DAY).toISOString());
  });
});

describe('the refund rule', () => {
  it.each([
    ['SO20261001', 599, 'full_refund'],
    ['SO20261002', 764.15, 'restocking_fee'],
    ['SO20261003', 349, 'cancellation'],
    ['SO20261004', 0, 'warranty_only'],
    ['SO20261005', 129, 'full_refund'],
  ] as const)('gives %s its rule amount through calculate_refund', async (orderId, refund, rule) => {
    const tools = createOrderTools({ clock });
    const estimate = RefundEstimate.parse(await tools.calculate_refund.execute({ orderId }, ctx));
    expect(estimate).toMatchObject({ orderId, refund, rule, currency: 'CNY', estimate: true });
  });

  it('counts the 7-day window inclusively and takes 15% off an opened product', () => {
    const base = orderFixtures(NOW)[1]!;
    expect(refundEstimate({ ...base, daysSinceDelivery: 7 }).refund).toBe(764.15);
    expect(refundEstimate({ ...base, daysSinceDelivery: 8 })).toMatchObject({ refund: 0, rule: 'warranty_only' });
    expect(refundEstimate({ ...base, opened: false, daysSinceDelivery: 7 })).toMatchObject({ refund: 899, rule: 'full_refund' });
  });
});

describe('order tools', () => {
  it('are made with tool() and expose zod-derived JSON schema', () => {
    const tools = createOrderTools({ clock });
    expect(Object.keys(tools)).toEqual(['lookup_order', 'calculate_refund']);
    expect(tools.lookup_order.jsonSchema).toMatchObject({ type: 'object', required: ['orderId'], properties: { orderId: { pattern: '^SO\\d{8}$' } } });
  });

  it('refuse a malformed order number before running, with a clear message', () => {
    const parsed = createOrderTools({ clock }).lookup_order.parameters.safeParse({ orderId: 'SO123' });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.message).toBe('an order number is "SO" followed by 8 digits, e.g. SO20261001');
    expect(OrderId.safeParse('so20261001').success).toBe(false);
  });

  it('look up an order with lookup_order', async () => {
    const order = await createOrderTools({ clock }).lookup_order.execute({ orderId: 'SO20261003' }, ctx);
    expect(order).toMatchObject({ product: 'Aero Speaker Mini', status: 'in_transit', deliveredAt: null });
  });

  it('fail with a non-retryable ToolError for an unknown order', () => {
    const call = () => createOrderTools({ clock }).lookup_order.execute({ orderId: 'SO20269999' }, ctx);
    expect(call).toThrow(ToolError);
    expect(call).toThrow('there is no order SO20269999; check the number with the customer');
  });
});
