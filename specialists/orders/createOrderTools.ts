import { ToolError, tool, type Clock, type Tool } from 'switchboard/engine';
import { z } from 'zod';
import { OrderId, orderFixtures, type Order } from './Order.js';
import { refundEstimate } from './refundEstimate.js';

/** Options for {@link createOrderTools}. */
export interface OrderToolsOptions {
  /** The time delivery ages are measured against (default: the system clock). */
  clock?: Clock;
}

/** The arguments of both order tools. */
export const OrderToolArgs = z.object({ orderId: OrderId.describe('The order number, "SO" followed by 8 digits, e.g. SO20261001') });

/** The order tools, by name. */
export interface OrderTools {
  lookup_order: Tool<typeof OrderToolArgs>;
  calculate_refund: Tool<typeof OrderToolArgs>;
}

/**
 * The order tools, made with `tool()` (arguments parsed with zod, so a malformed order number is
 * refused before anything runs): `lookup_order({ orderId })` returns the {@link Order};
 * `calculate_refund({ orderId })` applies the refund rule and returns a `RefundEstimate`. An
 * unknown order is a non-retryable `ToolError`.
 *
 * @example
 * const tools = createOrderTools({ clock: { now: () => Date.parse('2026-10-10T00:00:00Z') } });
 * const agent = new Agent({ name: 'orders', instructions: '…', tools: Object.values(tools) });
 */
export function createOrderTools(options: OrderToolsOptions = {}): OrderTools {
  const clock = options.clock ?? { now: () => Date.now() };
  const find = (orderId: string): Order => {
    const order = orderFixtures(clock.now()).find((o) => o.orderId === orderId);
    if (order === undefined) {
      throw new ToolError(`there is no order ${orderId}; check the number with the customer`, { code: 'tool_failed', retryable: false });
    }
    return order;
  };
  return {
    lookup_order: tool({
      name: 'lookup_order',
      description: 'Looks up an order by its number: product, price in CNY, delivery status, days since delivery, whether it was opened.',
      parameters: OrderToolArgs,
      execute: ({ orderId }) => find(orderId),
    }),
    calculate_refund: tool({
      name: 'calculate_refund',
      description:
        'Estimates the refund for an order under the return policy. Call it only after lookup_order succeeded for the same order.',
      parameters: OrderToolArgs,
      execute: ({ orderId }) => refundEstimate(find(orderId)),
    }),
  };
}
