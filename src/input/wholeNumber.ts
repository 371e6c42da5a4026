import { z } from 'zod';

/**
 * A schema for a whole number from `min` to `max`, given as a number or as plain decimal digits
 * (what a command line or a form sends). `0x10`, `1e3`, `1.5`, `-1`, ` 7`, `""` and `"Infinity"`
 * are refused rather than read as something else; the message names `what` and the range.
 *
 * @example
 * wholeNumber(1, 20, 'tool budget').parse('16'); // 16
 * wholeNumber(1, 20, 'tool budget').safeParse('0x10').success; // false
 */
export function wholeNumber(min: number, max: number, what: string) {
  const rule = `${what} must be a whole number from ${min} to ${max} in plain decimal digits`;
  return z.union([z.number(), z.string()], { error: rule }).transform((value, ctx) => {
    const n = typeof value === 'number' ? value : /^[0-9]{1,15}$/.test(value) ? Number(value) : NaN;
    if (!Number.isSafeInteger(n) || n < min || n > max) {
      ctx.addIssue({ code: 'custom', message: `${rule}; received ${JSON.stringify(value)}` });
      return z.NEVER;
    }
    return n;
  });
}
