import type { EntitySpan } from './EntitySpan.js';

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];
const SHORT = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const NUMBER_WORDS: Record<string, number> = { one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10, eleven: 11, twelve: 12 };

/** Edit distance, stopped early above `max`. */
function distance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = row;
  }
  return prev[b.length]!;
}

/** The month (1–12) a word names: a full name, an abbreviation ("sept", "aug."), or a full name with one or two typos. */
export function monthOf(word: string): number | undefined {
  const w = word.toLowerCase().replace(/\.$/, '');
  if (w === 'sept') return 9;
  const exact = MONTHS.indexOf(w) + 1 || SHORT.indexOf(w) + 1;
  if (exact) return exact;
  if (w.length < 5 || w.length > 11) return undefined;
  // A typo keeps the first letter or the last two; other words are not compared at all.
  const near = MONTHS.findIndex(
    (m) => m.length >= 5 && (m[0] === w[0] || m.endsWith(w.slice(-2))) && distance(w, m, 2) <= (m.length >= 8 ? 2 : 1),
  );
  return near === -1 ? undefined : near + 1;
}

/** A word that may name a month (checked by {@link monthOf}), with an optional year before or after it. */
const MONTH_WORD = /\b(?:(20\d{2})\s+)?((?:[adfjmnos][a-z]{2,10}|[a-z]{4,9}(?:er|ry|st|ly|ch|il|ne))\.?)(?:\s*,?\s*(20\d{2}|'\d{2})\b)?/gi;

const pad = (n: number) => String(n).padStart(2, '0');
const shift = (year: number, month: number, back: number) => {
  const index = year * 12 + (month - 1) - back;
  return `${Math.floor(index / 12)}-${pad((index % 12) + 1)}`;
};

/** Options for {@link readPeriods}. */
export interface ReadPeriodOptions {
  /** The time relative periods ("last month") and months without a year are read against (ms since the epoch). */
  now: number;
}

/**
 * The report months (`YYYY-MM`) a message names, in the order they appear: `2026-08`, `2026/08`,
 * `2026.08`, `08/2026`, `07-2026`, `7.2026`, `Aug 2026`, `sept. 2026`, `Agust 2026` (typos in month names), a month
 * alone (the latest such month up to `now`), and relative months read against `now` — "this
 * month", "last month", "previous month", "the month before last", "two months ago".
 *
 * @example
 * readPeriods('revenue last month', { now: Date.parse('2026-10-12T00:00:00Z') })[0]?.value; // '2026-09'
 */
export function readPeriods(text: string, options: ReadPeriodOptions): EntitySpan[] {
  const today = new Date(options.now);
  const year = today.getUTCFullYear();
  const month = today.getUTCMonth() + 1;
  const found: EntitySpan[] = [];
  const add = (value: string, start: number, end: number) => {
    if (!found.some((f) => start < f.end && end > f.start)) found.push({ kind: 'period', value, start, end });
  };
  for (const m of text.matchAll(/\b(20\d{2})\s*[-/.]\s*(0?[1-9]|1[0-2])\b(?![-/.]\d)/g)) add(`${m[1]}-${pad(Number(m[2]))}`, m.index, m.index + m[0].length);
  // `08/2026`, `07-2026`, `7.2026`; not the end of a full date (`04-07-2026`).
  for (const m of text.matchAll(/(?<![\d][-/.]|\d)\b(0?[1-9]|1[0-2])\s*[-/.]\s*(20\d{2})\b/g)) add(`${m[2]}-${pad(Number(m[1]))}`, m.index, m.index + m[0].length);
  for (const m of text.matchAll(/\b(?:the\s+)?month\s+before\s+last\b/gi)) add(shift(year, month, 2), m.index, m.index + m[0].length);
  for (const m of text.matchAll(/\b(\d{1,2}|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)\s+months?\s+(?:ago|back|earlier)\b/gi)) {
    const n = NUMBER_WORDS[m[1]!.toLowerCase()] ?? Number(m[1]);
    add(shift(year, month, n), m.index, m.index + m[0].length);
  }
  for (const m of text.matchAll(/\b(?:last|previous|past|prior)\s+month(?:'s)?\b/gi)) add(shift(year, month, 1), m.index, m.index + m[0].length);
  for (const m of text.matchAll(/\b(?:this|current)\s+month(?:'s)?\b/gi)) add(shift(year, month, 0), m.index, m.index + m[0].length);
  // Month words, with an optional year after ("Aug 2026", "August, 2026", "July '26") or before ("2026 August").
  for (const m of text.matchAll(MONTH_WORD)) {
    const word = m[2]!;
    const named = monthOf(word);
    if (named === undefined) continue;
    const yearText = m[3] ?? m[1];
    const lower = word.toLowerCase();
    // "may" and "march" are also verbs, "mar" a word: only with a year.
    if (yearText === undefined && ['may', 'march', 'mar', 'jun', 'dec', 'sep'].includes(lower.replace(/\.$/, ''))) continue;
    if (yearText === undefined && lower.length > 4 && MONTHS.indexOf(lower) === -1) continue;
    const y = yearText === undefined ? (named > month ? year - 1 : year) : yearText.startsWith("'") ? 2000 + Number(yearText.slice(1)) : Number(yearText);
    const start = m[1] !== undefined && m[3] === undefined ? m.index : m.index + m[0].indexOf(word);
    add(`${y}-${pad(named)}`, start, m.index + m[0].length);
  }
  return found.sort((a, b) => a.start - b.start);
}
