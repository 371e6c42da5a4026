import { z } from 'zod';

const CITATION = /\[(KB\d{3})\]/g;

/** The knowledge-base ids an answer cites as `[KB001]`, in order of first appearance, without repeats. */
export function citedIds(answer: string): string[] {
  return [...new Set([...answer.matchAll(CITATION)].map((m) => m[1]!))];
}

/** The verdict of {@link citesOnlyRetrieved}. */
export const CitationCheck = z.object({
  ok: z.boolean(),
  /** Ids the answer cites. */
  cited: z.array(z.string()),
  /** Cited ids that were not retrieved (made up, or from another question). */
  unknown: z.array(z.string()),
  /** Why the answer is rejected; empty when `ok`. */
  reason: z.string(),
});
/** The verdict of {@link citesOnlyRetrieved}. */
export type CitationCheck = z.infer<typeof CitationCheck>;

/**
 * Checks an answer's citations against what retrieval returned: it passes only when it cites at
 * least one retrieved id and every id it cites was retrieved. `review` rejects a draft that fails.
 *
 * @example
 * citesOnlyRetrieved('Full refund within 7 days [KB001].', ['KB001', 'KB009']).ok; // true
 * citesOnlyRetrieved('Full refund within 7 days.', ['KB001']).reason; // 'the draft cites no retrieved document …'
 */
export function citesOnlyRetrieved(answer: string, retrievedIds: readonly string[]): CitationCheck {
  const cited = citedIds(answer);
  const retrieved = new Set(retrievedIds);
  const unknown = cited.filter((id) => !retrieved.has(id));
  let reason = '';
  if (cited.length === 0) {
    reason = `the draft cites no retrieved document; cite the ids it uses as [KB001] (retrieved: ${retrievedIds.join(', ') || 'none'})`;
  } else if (unknown.length > 0) {
    reason = `the draft cites ${unknown.join(', ')}, which retrieval did not return (retrieved: ${retrievedIds.join(', ') || 'none'})`;
  }
  return { ok: reason === '', cited, unknown, reason };
}
