import type { EntitySpan } from './EntitySpan.js';

/** One piece of a message, with the entity spans inside it (offsets relative to the piece). */
export interface Clause {
  text: string;
  start: number;
  spans: EntitySpan[];
}

/**
 * Where a message changes subject: sentence ends, semicolons, "+", "&", and words that start
 * another request ("and", "also", "plus", "btw", "then", "as well as", "separately", "second").
 */
const BOUNDARY =
  /[.?!;:\n]+(?=\s|$)|\s[+&]\s|,?\s+(?:and\s+(?:also\s+)?|also,?\s+|plus,?\s+|btw,?\s+|then,?\s+|as well as\s+|separately,?\s+|additionally,?\s+|(?:second|third|finally|lastly)(?:ly)?,?\s+)|,\s+/gi;

/**
 * Cuts a message into clauses at sentence ends and at words that start another request. Entity
 * spans are never cut ("order no. 20261002", "Sept. 2026" stay whole). Empty pieces are dropped.
 *
 * @example
 * splitClauses('What is the return policy, and the refund for SO20261002?', []).map((c) => c.text);
 * // ['What is the return policy', 'the refund for SO20261002']
 */
export function splitClauses(text: string, spans: readonly EntitySpan[]): Clause[] {
  const cuts: Array<[number, number]> = [];
  for (const m of text.matchAll(BOUNDARY)) {
    const start = m.index;
    const end = start + m[0].length;
    if (spans.some((s) => start < s.end && end > s.start)) continue;
    cuts.push([start, end]);
  }
  const clauses: Clause[] = [];
  let at = 0;
  for (const [start, end] of [...cuts, [text.length, text.length] as [number, number]]) {
    const raw = text.slice(at, start);
    const lead = raw.length - raw.trimStart().length;
    const piece = raw.trim();
    if (piece.length > 0) {
      const from = at + lead;
      clauses.push({
        text: piece,
        start: from,
        spans: spans.filter((s) => s.start >= from && s.end <= from + piece.length).map((s) => ({ ...s, start: s.start - from, end: s.end - from })),
      });
    }
    at = end;
  }
  return clauses;
}
