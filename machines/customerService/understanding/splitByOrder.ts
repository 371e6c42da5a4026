import type { Clause } from './splitClauses.js';

/** One order's share of an order request: the order number and what to ask the orders specialist about it. */
export interface OrderRequest {
  orderId: string;
  input: string;
}

const CONNECTOR = /^(?:\s*(?:,|;|&|\+|\/|(?:and|or|plus|as well as)\b)\s*)+/i;
const words = (text: string) => text.match(/[a-z]+/gi)?.length ?? 0;

/** The clause's text with the order numbers other than `keep` taken out, with the "and" / "," that joined them. */
function without(clause: Clause, keep: string | null): string {
  let text = clause.text;
  const others = clause.spans.filter((s) => s.kind === 'orderId' && s.value !== keep).sort((a, b) => b.start - a.start);
  for (const span of others) {
    const before = text.slice(0, span.start).replace(/(?:\s*(?:,|;|&|\+|\/|\b(?:and|or|plus|as well as)))+\s*$/i, '');
    const after = text.slice(span.end);
    // A connector is dropped on one side only, so "A and B" keeps its words for the order left in it.
    text = before.length < span.start ? `${before}${after}` : `${before}${after.replace(CONNECTOR, ' ')}`;
  }
  return text.replace(/\s{2,}/g, ' ').trim();
}

/**
 * Splits an order request that names several orders into one request per order, in the order
 * they are named, so each is looked up (and, when asked, refunded) on its own: the clauses that
 * name the order, plus the clauses that name none ("how much do I get back"), with the other
 * order numbers taken out. An order named only in passing ("…and SO20261002") gets the whole
 * request with its number in place of the others.
 *
 * @example
 * splitByOrder([{ text: 'refund SO20261001 and SO20261002', start: 0, spans: [...] }]);
 * // [{ orderId: 'SO20261001', input: 'refund SO20261001' }, { orderId: 'SO20261002', input: 'refund (order SO20261002)' }]
 */
export function splitByOrder(clauses: readonly Clause[]): OrderRequest[] {
  const ids = [...new Set(clauses.flatMap((c) => c.spans.filter((s) => s.kind === 'orderId').map((s) => s.value)))];
  const shared = clauses.filter((c) => !c.spans.some((s) => s.kind === 'orderId'));
  const whole = clauses.map((c) => without(c, null)).filter((t) => words(t) > 0).join('; ');
  return ids.map((orderId) => {
    const own = clauses.filter((c) => c.spans.some((s) => s.kind === 'orderId' && s.value === orderId));
    // "SO20261002" or "and SO20261002 too" says nothing of its own: it shares the rest of the request.
    if (own.every((c) => words(without(c, null)) < 2)) return { orderId, input: `${whole} (order ${orderId})` };
    const parts = clauses.filter((c) => own.includes(c) || shared.includes(c)).map((c) => without(c, orderId));
    return { orderId, input: parts.join('; ') };
  });
}
