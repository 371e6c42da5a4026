import type { EntitySpan } from './EntitySpan.js';

/** `SO20261002`, `so-20261002`, `SO 20261002`, `S0 20261002` (a zero for the O). */
const PREFIXED = /\bs[o0][\s#:-]*(\d{8})\b/gi;
/** `order 20261002`, `order #20261002`, `order no. 20261002`, `order number: 20261002`. */
const AFTER_ORDER = /\border(?:\s*(?:no\.?|nr\.?|num(?:ber)?|id|#))?\s*[:#]?\s*(\d{8})\b/gi;
/** `#20261002`. */
const HASHED = /#\s?(\d{8})\b/g;
/** A bare 8-digit number: read where an order number was just asked for, or beside words about an order. */
const BARE = /\b(\d{8})\b/g;
/** Words that make a bare 8-digit number an order number: "did 20261004 arrive", "track 20261003". */
const ORDER_WORDS = /\b(?:orders?|parcels?|packages?|shipments?|deliver(?:y|ed|ing)?|arriv(?:e|ed|es|ing|al)|ship(?:ped|ping)?|track(?:ing)?|refund(?:ed|s)?|return(?:ed|ing|s)?|cancel(?:led|ed|ling)?|bought|purchased?)\b/i;

/** Options for {@link readOrderIds}. */
export interface ReadOrderIdOptions {
  /**
   * The desk has just asked for an order number, so a bare 8-digit number counts as one. Without
   * it a bare number counts only in a message with a word about an order ("arrive", "refund",
   * "track", …), so "I paid 20261004 cents" names no order.
   */
  expectingOrderId?: boolean;
}

/**
 * The order numbers a message names, normalized to `SO` + 8 digits, in the order they appear.
 * Malformed numbers (`SO123`) are not entities: the order tool refuses them itself.
 *
 * @example
 * readOrderIds('refund for order no. 20261002').map((s) => s.value); // ['SO20261002']
 */
export function readOrderIds(text: string, options: ReadOrderIdOptions = {}): EntitySpan[] {
  const bare = options.expectingOrderId === true || ORDER_WORDS.test(text);
  const patterns = bare ? [PREFIXED, AFTER_ORDER, HASHED, BARE] : [PREFIXED, AFTER_ORDER, HASHED];
  const found: EntitySpan[] = [];
  for (const pattern of patterns) {
    for (const match of text.matchAll(pattern)) {
      const start = match.index;
      const end = start + match[0].length;
      if (found.some((f) => start < f.end && end > f.start)) continue;
      found.push({ kind: 'orderId', value: `SO${match[1]}`, start, end });
    }
  }
  return found.sort((a, b) => a.start - b.start);
}
