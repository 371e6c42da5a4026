import { createRequire } from 'node:module';
import type MiniSearch from 'minisearch';

/**
 * MiniSearch, loaded on the first fuzzy lookup: most messages (a greeting) have only known words,
 * so a CLI run need not load and compile it. `correct` is synchronous, hence require (the package
 * ships CommonJS beside its ES modules).
 */
let miniSearch: typeof MiniSearch | null = null;
const loadMiniSearch = (): typeof MiniSearch => (miniSearch ??= createRequire(import.meta.url)('minisearch') as typeof MiniSearch);

/**
 * The words the classifier knows (from its training messages and the knowledge base), with a
 * MiniSearch index over them so a misspelled word ("retrun", "polcy", "warrenty") is read as the
 * closest common word. Fuzzy matching allows about one edit in four letters; among equally close
 * words the more frequent wins.
 *
 * @example
 * new SpellingVocabulary([['return', 'policy']]).correct('retrun'); // 'return'
 */
export class SpellingVocabulary {
  readonly #counts = new Map<string, number>();
  /** Built on the first fuzzy lookup: most messages have only known words, and a process may answer none. */
  #index: MiniSearch<{ id: number; word: string }> | null = null;
  readonly #cache = new Map<string, string>();

  constructor(texts: Iterable<readonly string[]>) {
    for (const tokens of texts) for (const t of tokens) this.#counts.set(t, (this.#counts.get(t) ?? 0) + 1);
  }

  /** The vocabulary's words with how often each was seen (what {@link SpellingVocabulary.fromCounts} takes back). */
  counts(): Array<[string, number]> {
    return [...this.#counts];
  }

  /** A vocabulary from {@link SpellingVocabulary.counts}. */
  static fromCounts(counts: ReadonlyArray<readonly [string, number]>): SpellingVocabulary {
    const vocabulary = new SpellingVocabulary([]);
    for (const [word, count] of counts) vocabulary.#counts.set(word, count);
    return vocabulary;
  }

  static #indexOf(counts: Map<string, number>): MiniSearch<{ id: number; word: string }> {
    const index = new (loadMiniSearch())<{ id: number; word: string }>({ fields: ['word'], storeFields: ['word'], tokenize: (s) => [s], processTerm: (t) => t });
    index.addAll([...counts.keys()].map((word, id) => ({ id, word })));
    return index;
  }

  /** Whether the word was seen. */
  has(word: string): boolean {
    return this.#counts.has(word);
  }

  /**
   * The word itself when it is common (seen twice or more) or too short to judge; an unseen word
   * with held letters as the seen word they stretch; otherwise the closest word seen at least three
   * times and more often than it, or the word unchanged.
   */
  correct(word: string): string {
    const own = this.#counts.get(word) ?? 0;
    if (own === 0 && /(.)\1/.test(word)) {
      // Letters held for emphasis ("heyyy", "hellooo", "hii") are read as the word they stretch.
      const squeezed = [word.replace(/(.)\1{2,}/g, '$1'), word.replace(/(.)\1{2,}/g, '$1$1'), word.replace(/(.)\1+/g, '$1')].find((w) => this.#counts.has(w));
      if (squeezed !== undefined) return squeezed;
    }
    if (word.length < 4 || own >= 2) return word;
    const cached = this.#cache.get(word);
    if (cached !== undefined) return cached;
    const hits = (this.#index ??= SpellingVocabulary.#indexOf(this.#counts)).search(word, { fuzzy: word.length >= 7 ? 0.3 : 0.25, prefix: false });
    let best = word;
    let bestScore = -Infinity;
    for (const hit of hits.slice(0, 8)) {
      const candidate = hit['word'] as string;
      const seen = this.#counts.get(candidate) ?? 0;
      if (candidate === word || seen < 3 || seen <= own) continue;
      const score = hit.score * Math.log(2 + seen);
      if (candidate[0] === word[0] || candidate.length > 5) {
        if (score > bestScore) [best, bestScore] = [candidate, score];
      }
    }
    this.#cache.set(word, best);
    return best;
  }
}
