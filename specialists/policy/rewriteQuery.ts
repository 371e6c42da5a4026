/** Words dropped when a question is turned into search keywords. */
const FILLER = new Set(
  ('a an and are as at be by can could do does for from have how i if in is it its me my of on or our please should so ' +
    'that the them there this to us was we what when where which who why will with would you your tell explain mean ' +
    'fix attached image about know want need').split(' '),
);

/** Related terms added to a rewritten query so it reaches documents worded differently. */
const RELATED: Record<string, string> = {
  headphone: 'headphones earbuds',
  headphones: 'earbuds',
  earbuds: 'headphones',
  return: 'refund',
  returns: 'refund',
  refund: 'return',
  led: 'fault code',
  blinking: 'fault code',
  broken: 'warranty defect',
  invoice: 'vat',
  delivery: 'shipping',
};

/**
 * A changed search query for a second retrieval round: the keywords of the question (filler words
 * and punctuation removed) plus related terms. Deterministic, and never equal to any query in
 * `previous` (a neutral suffix is added when it would be).
 *
 * @example
 * rewriteQuery('What is the return policy for Aero headphones?'); // 'return policy aero headphones refund earbuds'
 */
export function rewriteQuery(question: string, previous: readonly string[] = []): string {
  const words = question.toLowerCase().match(/[a-z0-9]+/g) ?? [];
  const keywords = [...new Set(words.filter((w) => !FILLER.has(w)))];
  const related = keywords.flatMap((w) => (RELATED[w] ?? '').split(' ').filter((r) => r !== '' && !keywords.includes(r)));
  let query = [...new Set([...keywords, ...related])].join(' ') || 'policy';
  const used = new Set(previous.map((q) => q.trim().toLowerCase()));
  for (let n = 1; used.has(query); n++) query = `${query} guide${n > 1 ? ` ${n}` : ''}`;
  return query;
}
