import { UsageError } from '../../errors/UsageError.js';

const UNITS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** A date, optionally a time of day (minutes, seconds, milliseconds), optionally `Z` or an offset. */
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3}))?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

const FORMS = 'an ISO date or date-time, read as UTC unless it ends in Z or an offset (2026-12-01, 2026-12-01T08:00, 2026-12-01T08:00:00+02:00), or a duration ago (30m, 12h, 7d)';

/**
 * The time `--since` names, in epoch ms: a duration ago (`30m`, `12h`, `7d`, `2w`) or an ISO date
 * or date-time. A date (`2026-12-01`, its midnight) or a date-time without a zone
 * (`2026-12-01T08:00`, `2026-12-01 08:00:00.5`) is UTC, whatever the machine's time zone, so the
 * same command picks the same runs everywhere; `Z` or an offset (`+02:00`, `-0500`) is honoured.
 * Anything else, a day the month does not have, a time of day or an offset out of range, is a UsageError.
 */
export function parseSince(text: string, now: number): number {
  const trimmed = text.trim();
  const ago = /^(\d+)\s*([smhdw])$/.exec(trimmed);
  if (ago) return now - Number(ago[1]) * UNITS[ago[2]!]!;
  const match = DATE_TIME.exec(trimmed);
  const refuse = (problem: string) => new UsageError(`${problem}; received "${text}" (--since takes ${FORMS})`);
  if (match === null) throw new UsageError(`--since must be ${FORMS}; received "${text}"`);
  const [, year, month, day, hours = '00', minutes = '00', seconds, fraction = '', zone] = match as unknown as string[];
  if (Number(month) < 1 || Number(month) > 12) throw refuse(`--since: there is no month ${month}`);
  if (Number(hours) > 23 || Number(minutes) > 59 || Number(seconds ?? 0) > 59) {
    throw refuse(`--since: ${hours}:${minutes}${seconds === undefined ? '' : `:${seconds}`} is not a time of day (00:00 to 23:59:59.999)`);
  }
  let offsetMinutes = 0;
  if (zone !== undefined && zone !== 'Z') {
    const [offHours, offMinutes] = [Number(zone.slice(1, 3)), Number(zone.slice(-2))];
    if (offHours > 23 || offMinutes > 59) throw refuse(`--since: ${zone} is not a time-zone offset (-23:59 to +23:59)`);
    offsetMinutes = (zone[0] === '-' ? -1 : 1) * (offHours * 60 + offMinutes);
  }
  // setUTCFullYear, not Date.UTC, which reads the years 0 to 99 as 1900 to 1999.
  const at = new Date(0);
  at.setUTCFullYear(Number(year), Number(month) - 1, Number(day));
  // A day the month does not have (2026-02-31) would roll over into the next month: it is a mistake to say.
  if (at.getUTCDate() !== Number(day)) throw refuse(`--since: ${year}-${month} has no day ${Number(day)}`);
  at.setUTCHours(Number(hours), Number(minutes), Number(seconds ?? 0), Number(fraction.padEnd(3, '0')));
  return at.getTime() - offsetMinutes * 60_000;
}
