/**
 * The node ids a run has executed, as the machine context keeps them: an append-only log of
 * chunks. Full chunks are never changed once written, so each new snapshot shares them with the
 * previous one; a step copies only the open `tail` (at most {@link PATH_CHUNK} ids) and, once per
 * chunk, the list of chunks. A step therefore costs O(chunk), not O(steps), and no snapshot already
 * handed out ever changes. Plain JSON, so it is persisted with the snapshot.
 */
export interface PathLog {
  /** Full chunks of exactly {@link PATH_CHUNK} ids each, oldest first. */
  chunks: string[][];
  /** The ids after the last full chunk (fewer than {@link PATH_CHUNK}). */
  tail: string[];
}

/** How many ids a full chunk holds. */
export const PATH_CHUNK = 64;

/** The empty log. */
export const emptyPath = (): PathLog => ({ chunks: [], tail: [] });

/** A new log with `id` appended; `log` is left as it was. */
export function appendPath(log: PathLog, id: string): PathLog {
  // A snapshot stored before paths were logs holds a flat array.
  if (Array.isArray(log)) log = toPathLog(log);
  if (log.tail.length < PATH_CHUNK - 1) return { chunks: log.chunks, tail: [...log.tail, id] };
  return { chunks: [...log.chunks, [...log.tail, id]], tail: [] };
}

/** How many ids the log holds. */
export function pathLength(log: PathLog): number {
  return log.chunks.length * PATH_CHUNK + log.tail.length;
}

/**
 * The ids as one array (a new one). Accepts what a stored snapshot holds: a log, or the flat array
 * older snapshots kept; anything else reads as an empty path.
 */
export function readPath(value: unknown): string[] {
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === 'string');
  if (value === null || typeof value !== 'object') return [];
  const { chunks, tail } = value as Partial<PathLog>;
  const out: string[] = [];
  if (Array.isArray(chunks)) for (const chunk of chunks) if (Array.isArray(chunk)) out.push(...chunk);
  if (Array.isArray(tail)) out.push(...tail);
  return out;
}

/** A log holding `ids` (used when a snapshot stored with a flat path continues). */
export function toPathLog(value: unknown): PathLog {
  if (value !== null && typeof value === 'object' && !Array.isArray(value) && Array.isArray((value as PathLog).tail)) return value as PathLog;
  let log = emptyPath();
  for (const id of readPath(value)) log = appendPath(log, id);
  return log;
}
