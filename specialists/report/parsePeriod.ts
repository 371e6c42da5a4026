const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const MONTH_WORD = /\b(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?(?:\s*,?\s*(\d{4}))?\b/i;

/** Options for {@link parsePeriod}. */
export interface ParsePeriodOptions {
  /** The year assumed when a month is named without one (default: the current year). */
  defaultYear?: number;
}

/**
 * The report period (`YYYY-MM`) a message asks about: `2026-09` as written, or a month name with an
 * optional year ("September 2026", "Sep 2026", "sept. 2026"). "May" counts only with a year, since
 * it is also a verb. Undefined when the message names no month.
 *
 * @example
 * parsePeriod('Query the September 2026 sales report'); // '2026-09'
 */
export function parsePeriod(text: string, options: ParsePeriodOptions = {}): string | undefined {
  const iso = /\b(\d{4})-(0[1-9]|1[0-2])\b/.exec(text);
  if (iso) return `${iso[1]}-${iso[2]}`;
  const named = MONTH_WORD.exec(text);
  if (!named) return undefined;
  const word = named[1]!.toLowerCase();
  const year = named[2] ?? (word === 'may' ? undefined : String(options.defaultYear ?? new Date().getUTCFullYear()));
  if (year === undefined) return undefined;
  const month = MONTHS.indexOf(word.slice(0, 3)) + 1;
  return `${year}-${String(month).padStart(2, '0')}`;
}
