import MiniSearch from 'minisearch';
import { ToolError } from 'switchboard/engine';
import { z } from 'zod';
import { loadPolicyDocuments, type PolicyDocument } from './PolicyDocument.js';

/** One search hit: the document and its relevance score (higher is better). */
export const PolicyHit = z.object({
  id: z.string(),
  title: z.string(),
  text: z.string(),
  score: z.number(),
});
/** One search hit (see {@link PolicyHit}). */
export type PolicyHit = z.infer<typeof PolicyHit>;

/** Options for {@link searchPolicies}. */
export interface SearchPoliciesOptions {
  /** Most hits returned (default 3). */
  limit?: number;
  /** Drop hits scoring below this fraction of the best hit (default 0.25), so weak matches are not cited. */
  minRelativeScore?: number;
}

/** Words that say nothing about which document answers a question. */
const STOP_WORDS = new Set(
  ('a an and are as at be by can could do does for from have how i if in is it its me my of on or our please ' +
    'should so that the them there this to us was we what when where which who why will with would you your').split(' '),
);

let index: MiniSearch<PolicyDocument> | null = null;

/** The MiniSearch index over the knowledge base, built once (it never changes while the process runs). */
function policyIndex(): MiniSearch<PolicyDocument> {
  if (index !== null) return index;
  const built = new MiniSearch<PolicyDocument>({
    fields: ['title', 'text'],
    storeFields: ['title', 'text'],
    processTerm: (term) => {
      const lower = term.toLowerCase();
      return STOP_WORDS.has(lower) ? null : lower;
    },
    // Short terms are matched exactly: with fuzziness "E02" would also find E01, E03 and E04.
    searchOptions: { boost: { title: 2 }, prefix: true, fuzzy: (term) => (term.length > 3 ? 0.2 : false), combineWith: 'OR' },
  });
  built.addAll(loadPolicyDocuments());
  index = built;
  return built;
}

/**
 * Full-text search over the shipped knowledge base (MiniSearch: title boosted, prefix and fuzzy
 * matching, stop words dropped). Returns the best hits first.
 *
 * @example
 * searchPolicies('Can I return Aero headphones?', { limit: 2 })[0]?.id; // 'KB001'
 */
export function searchPolicies(query: string, options: SearchPoliciesOptions = {}): PolicyHit[] {
  const limit = options.limit ?? 3;
  const minRelative = options.minRelativeScore ?? 0.25;
  if (!Number.isInteger(limit) || limit < 1) {
    throw new ToolError(`searchPolicies: limit must be a positive integer; received ${String(limit)}`, { code: 'invalid_tool_arguments' });
  }
  const results = policyIndex().search(query);
  const best = results[0]?.score ?? 0;
  return results
    .filter((r) => r.score >= best * minRelative)
    .slice(0, limit)
    .map((r) => PolicyHit.parse({ id: r.id, title: r['title'], text: r['text'], score: Math.round(r.score * 1000) / 1000 }));
}
