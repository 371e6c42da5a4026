import type { EntitySpan } from './EntitySpan.js';

/** The token an entity becomes, so "SO20261002" and "order 20261003" read alike to the classifier. */
const PLACEHOLDER: Record<EntitySpan['kind'], string> = { orderId: 'xorderid', period: 'xperiod', faultCode: 'xfaultcode' };

/**
 * A light English stemmer: plural, -ing, -ed, -ly and a few more suffixes, so "refunds",
 * "refunded" and "refunding" share a feature. Words of four letters or fewer are kept.
 */
export function stem(word: string): string {
  let w = word;
  if (w.length <= 4) return w;
  if (w.endsWith("'s")) w = w.slice(0, -2);
  if (w.endsWith('ies') && w.length > 5) return `${w.slice(0, -3)}y`;
  if (w.endsWith('sses')) return w.slice(0, -2);
  for (const suffix of ['ingly', 'ing', 'edly', 'ed', 'ly', 'ment', 'able', 'ful', 'es', 's']) {
    if (w.endsWith(suffix) && w.length - suffix.length >= 3 && !(suffix === 's' && /(ss|us|is)$/.test(w))) {
      w = w.slice(0, -suffix.length);
      break;
    }
  }
  return w;
}

/** The message's words, lowercased, with each entity replaced by its placeholder token. */
export function tokensOf(text: string, spans: readonly EntitySpan[] = []): string[] {
  let masked = '';
  let at = 0;
  for (const span of [...spans].sort((a, b) => a.start - b.start)) {
    if (span.start < at) continue;
    masked += `${text.slice(at, span.start)} ${PLACEHOLDER[span.kind]} `;
    // "last month's revenue", "SO20261002's refund": the possessive belongs to the entity, not a word of its own.
    at = span.end + (/^['’`]s\b/i.exec(text.slice(span.end))?.[0].length ?? 0);
  }
  masked += text.slice(at);
  return (masked.toLowerCase().replace(/[’`]/g, "'").match(/[a-z]+(?:'[a-z]+)?/g) ?? []).map((t) => t.replace(/'s$/, ''));
}

/** Weights of the feature groups (chosen by cross-validation on the training part). */
export interface FeatureWeights {
  word: number;
  bigram: number;
  char: number;
}

/** The default weights. */
export const FEATURE_WEIGHTS: FeatureWeights = { word: 1, bigram: 0.6, char: 0.35 };

/**
 * The sparse features of a message: stemmed words, stemmed word bigrams (with start and end
 * markers), and character trigrams of each word (so typos such as "refnd" still share most
 * features with "refund"); L2-normalized.
 */
export function featuresOf(tokens: readonly string[], weights: FeatureWeights = FEATURE_WEIGHTS): Map<string, number> {
  const features = new Map<string, number>();
  const add = (key: string, value: number) => features.set(key, (features.get(key) ?? 0) + value);
  const stems = tokens.map(stem);
  for (const s of stems) add(`w:${s}`, weights.word);
  const padded = ['<s>', ...stems, '</s>'];
  for (let i = 0; i + 1 < padded.length; i++) add(`b:${padded[i]}_${padded[i + 1]}`, weights.bigram);
  if (weights.char > 0) {
    for (const token of tokens) {
      if (token.startsWith('x') && token.length > 6 && /^x(orderid|period|faultcode)$/.test(token)) continue;
      const t = `^${token}$`;
      for (let i = 0; i + 3 <= t.length; i++) add(`c:${t.slice(i, i + 3)}`, weights.char / Math.sqrt(token.length));
    }
  }
  let norm = 0;
  for (const v of features.values()) norm += v * v;
  norm = Math.sqrt(norm) || 1;
  for (const [k, v] of features) features.set(k, v / norm);
  return features;
}
