/** How one expected fact fared in an answer. */
export interface FactCheck {
  fact: string;
  found: boolean;
  /** Why a fact that appears in the answer still does not count (the answer is of the wrong kind). */
  note?: string;
}

/** A refund amount as the dataset writes it: "764.15", "0.00 CNY". */
const REFUND_AMOUNT = /^\d+\.\d{2}(?: CNY)?$/;
/** Where an order is, as the dataset writes it: "in transit", "delivered 3 days ago". */
const ORDER_STATUS = /^(?:in transit|delivered \d+ days? ago)$/i;
/** Words that make a sentence with an amount a statement about money back, in any model's wording. */
const MONEY_BACK = /\b(?:refund\w*|reimburs\w*|back|credit(?:ed)?|pa(?:y|id)\s?outs?)\b/i;
/** Any amount with cents. */
const AMOUNT = /\d+\.\d{2}/;

/** The answer cut into sentences and lines ("599.00" and "e.g." keep their dots: a cut needs white space after it). */
const sentencesOf = (answer: string): string[] => answer.split(/(?<=[.!?])\s+|\n+/).filter((s) => s.trim() !== '');

/** Whether `fact` stands in `text` on its own: "29.00" is not found inside "129.00", "KB001" not inside "KB0010". */
function contains(text: string, fact: string): boolean {
  const escaped = fact.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const before = /^[\w]/.test(fact) ? '(?<![\\w.,])' : '';
  const after = /[\w]$/.test(fact) ? '(?![\\w]|[.,]\\d)' : '';
  return new RegExp(`${before}${escaped}${after}`, 'i').test(text);
}

/** Whether the answer states an amount of money back anywhere (a refund estimate, in whatever words). */
export const estimatesRefund = (answer: string): boolean => sentencesOf(answer).some((s) => AMOUNT.test(s) && MONEY_BACK.test(s));

/**
 * Checks the facts a labelled message expects against the final answer, and that the answer is of
 * the kind asked for, not only that a figure appears in it:
 * - a refund amount ("764.15", "0.00 CNY") counts only in a sentence about money back, so an order
 *   status that quotes the price (which equals the refund for an unopened order) is not a refund answer;
 * - an order status ("in transit", "delivered 3 days ago") for a message that expects no refund
 *   amount counts only when the answer does not estimate a refund nobody asked for;
 * - anything else (report figures, KB ids, refusals) must appear as written, as a whole word or number.
 *
 * @example
 * checkFacts(['599.00'], 'Order SO20261001 (Aero Headphones, 599.00 CNY) was delivered 3 days ago.');
 * // [{ fact: '599.00', found: false, note: 'the amount appears, but not as money back' }]
 */
export function checkFacts(facts: readonly string[], answer: string | null): FactCheck[] {
  const text = answer ?? '';
  const sentences = sentencesOf(text);
  const asksForRefund = facts.some((f) => REFUND_AMOUNT.test(f));
  return facts.map((fact) => {
    if (!contains(text, fact)) return { fact, found: false };
    if (REFUND_AMOUNT.test(fact) && !sentences.some((s) => contains(s, fact) && MONEY_BACK.test(s))) {
      return { fact, found: false, note: 'the amount appears, but not as money back' };
    }
    if (ORDER_STATUS.test(fact) && !asksForRefund && estimatesRefund(text)) {
      return { fact, found: false, note: 'the answer estimates a refund that was not asked for' };
    }
    return { fact, found: true };
  });
}
