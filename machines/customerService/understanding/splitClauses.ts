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
 * Words that only steer the conversation ("Now, …", "OK so…", "Next question: …", "One more
 * thing - …"): a piece made of nothing else asks for nothing and is not a clause of its own.
 */
const FILLER = new Set(
  (
    'now so ok okay k well anyway anyways right alright oh ah um umm uh hmm also then next and but or plus btw first firstly second ' +
    'secondly third thirdly finally lastly last one more thing things question questions another other quick again too yes yeah yep ' +
    'sure please pls plz just actually basically besides moreover furthermore meanwhile otherwise additionally separately'
  ).split(' '),
);

/** Whether a piece has a word of its own: an entity, or any word that is not a {@link FILLER}. */
const saysSomething = (piece: string, spans: readonly EntitySpan[]): boolean =>
  spans.length > 0 || (piece.toLowerCase().match(/[a-z]+/g) ?? []).some((w) => !FILLER.has(w));

/**
 * Cuts a message into clauses at sentence ends and at words that start another request. Entity
 * spans are never cut ("order no. 20261002", "Sept. 2026" stay whole). Empty pieces are dropped,
 * and a piece of filler words only ("Now,", "OK so.") joins the clause after it (the one before, at the end).
 *
 * @example
 * splitClauses('What is the return policy, and the refund for SO20261002?', []).map((c) => c.text);
 * // ['What is the return policy', 'the refund for SO20261002']
 * splitClauses('Thanks! Now, where is SO20261003?', spans).map((c) => c.text);
 * // ['Thanks', 'Now, where is SO20261003']
 */
export function splitClauses(text: string, spans: readonly EntitySpan[]): Clause[] {
  const pieces = cutPieces(text, spans);
  const clauses: Clause[] = [];
  let pending: Clause | undefined;
  for (const piece of pieces) {
    const from = pending?.start ?? piece.start;
    const merged = pending === undefined ? piece : clauseAt(text, spans, from, piece.start + piece.text.length);
    if (saysSomething(piece.text, piece.spans)) {
      clauses.push(merged);
      pending = undefined;
    } else {
      pending = merged;
    }
  }
  if (pending !== undefined) {
    const last = clauses.pop();
    clauses.push(last === undefined ? pending : clauseAt(text, spans, last.start, pending.start + pending.text.length));
  }
  return clauses;
}

/** The clause of `text` from `from` to `to`, with the entity spans inside it. */
function clauseAt(text: string, spans: readonly EntitySpan[], from: number, to: number): Clause {
  return {
    text: text.slice(from, to),
    start: from,
    spans: spans.filter((s) => s.start >= from && s.end <= to).map((s) => ({ ...s, start: s.start - from, end: s.end - from })),
  };
}

/** The pieces between the cuts, trimmed, empty ones dropped. */
function cutPieces(text: string, spans: readonly EntitySpan[]): Clause[] {
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
    if (piece.length > 0) clauses.push(clauseAt(text, spans, at + lead, at + lead + piece.length));
    at = end;
  }
  return clauses;
}
