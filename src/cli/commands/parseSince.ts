import { UsageError } from '../../errors/UsageError.js';

const UNITS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/**
 * The time `--since` names, in epoch ms: a duration ago (`30m`, `12h`, `7d`, `2w`) or a date or time
 * `Date` reads in ISO form (`2026-12-01`, `2026-12-01T08:00:00Z`). Anything else is a UsageError.
 */
export function parseSince(text: string, now: number): number {
  const trimmed = text.trim();
  const ago = /^(\d+)\s*([smhdw])$/.exec(trimmed);
  if (ago) return now - Number(ago[1]) * UNITS[ago[2]!]!;
  const at = /^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(trimmed) ? Date.parse(trimmed) : Number.NaN;
  if (!Number.isFinite(at)) {
    throw new UsageError(`--since must be an ISO date or time (2026-12-01, 2026-12-01T08:00:00Z) or a duration ago (30m, 12h, 7d); received "${text}"`);
  }
  // Date.parse takes 2026-02-31 for 2026-03-03: a day the month does not have is a mistake to say.
  const [year, month, day] = trimmed.slice(0, 10).split('-').map(Number) as [number, number, number];
  if (new Date(Date.UTC(year, month - 1, day)).getUTCDate() !== day) {
    throw new UsageError(`--since: ${trimmed.slice(0, 7)} has no day ${day}; received "${text}"`);
  }
  return at;
}
