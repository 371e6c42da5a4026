import { closeSync, openSync, readSync } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import { AnalyticsError } from '../errors/AnalyticsError.js';
import { describeValue } from '../graph/describeValue.js';
import { TransitionRecord } from './TransitionRecord.js';

/**
 * Reads the records a `JsonlTransitionRecorder` wrote. A line cut short by a process that died while
 * writing it (the start of a record, `{…` with no closing `}`) is skipped, wherever it is: the
 * recorder that appends next starts on a new line, and a record another recorder appended right
 * after it on the same line is kept. Any other line that is not a record (edited by
 * hand) throws AnalyticsError `invalid_transition_record` naming its line, and so does a line longer
 * than 64 MiB (no record is); a file that cannot be read (missing, a directory, no permission)
 * throws AnalyticsError `unreadable_file`. The file is read 1 MiB at a time, so its size is bounded
 * by the memory its records take, not by the longest string V8 makes (about 512 MiB).
 *
 * @example
 * analyzeTransitions(readTransitionsFile('transitions.jsonl'));
 */
export function readTransitionsFile(file: string): TransitionRecord[] {
  if (typeof file !== 'string' || file.trim() === '') {
    throw new AnalyticsError(`readTransitionsFile(file): expected the path of a JSONL transitions file (a non-empty string); received ${describeValue(file)}`, 'unreadable_file');
  }
  const records: TransitionRecord[] = [];
  let number = 0;
  const take = (line: string, last: boolean): void => {
    number++;
    // An editor may have saved the file with a byte-order mark, which JSON.parse takes for text.
    const record = recordOf(number === 1 && line.startsWith('\uFEFF') ? line.slice(1) : line, number, last, file);
    if (record !== null) records.push(record);
  };
  eachLine(file, take);
  return records;
}

/** Bytes read at a time: the file is read piece by piece, so its size is not bounded by the longest string V8 makes (about 512 MiB). */
const CHUNK_BYTES = 1024 * 1024;
/** The longest line taken: a record is a few hundred bytes; a line longer than this is no record. */
const MAX_LINE_CHARS = 64 * 1024 * 1024;

/** Calls `take` with each line of `file` (without its newline) in order, `last` for the piece after the last newline. */
function eachLine(file: string, take: (line: string, last: boolean) => void): void {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (error) {
    throw unreadable(file, error);
  }
  try {
    const buffer = Buffer.allocUnsafe(CHUNK_BYTES);
    const decoder = new StringDecoder('utf8');
    let rest = '';
    for (;;) {
      let read: number;
      try {
        read = readSync(fd, buffer, 0, CHUNK_BYTES, null);
      } catch (error) {
        throw unreadable(file, error);
      }
      const text = rest + (read === 0 ? decoder.end() : decoder.write(buffer.subarray(0, read)));
      let start = 0;
      // What was left over holds no newline: the search starts after it (a long line is not scanned again and again).
      for (let end = text.indexOf('\n', rest.length); end >= 0; end = text.indexOf('\n', start)) {
        take(text.slice(start, end), false);
        start = end + 1;
      }
      rest = text.slice(start);
      if (read === 0) break;
      if (rest.length > MAX_LINE_CHARS) {
        throw new AnalyticsError(`${file} has a line longer than ${MAX_LINE_CHARS / 1024 / 1024} MiB; each line must be one TransitionRecord (a few hundred bytes): is it a transitions file?`, 'invalid_transition_record');
      }
    }
    take(rest, true);
  } finally {
    closeSync(fd);
  }
}

function unreadable(file: string, error: unknown): AnalyticsError {
  const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file (a JsonlTransitionRecorder creates it at its first write)' : (error as Error).message;
  return new AnalyticsError(`readTransitionsFile: cannot read ${file}: ${reason}; check the path`, 'unreadable_file');
}

/** The record line `number` holds, or null for a blank line or one a writer cut short (see readTransitionsFile). */
function recordOf(line: string, number: number, last: boolean, file: string): TransitionRecord | null {
  if (line.trim() === '') return null;
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    // The last write of a process that died can be cut short, and a writer already running appends
    // its next record right after it: that record is kept, the piece before it dropped.
    value = recordAfterCut(line);
    if (value === undefined) {
      // Anything else is damage.
      if (last || cutShort(line)) return null;
      throw new AnalyticsError(`${file} line ${number} is not JSON; each line must be one TransitionRecord: mend or delete it`, 'invalid_transition_record');
    }
  }
  const parsed = TransitionRecord.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new AnalyticsError(`${file} line ${number} is not a TransitionRecord: ${issue?.path.join('.') || 'record'} ${issue?.message ?? 'is invalid'}`, 'invalid_transition_record');
  }
  return parsed.data;
}

/** A line a writer began and never finished: a record's start without its end (records are flat objects). */
function cutShort(line: string): boolean {
  const text = line.trim();
  return text.startsWith('{') && !text.endsWith('}');
}

/**
 * The record a line ends with when a piece cut short comes before it: a record's `{"runId":` can
 * only start a record (in a string its quotes are escaped). Undefined when there is none.
 */
function recordAfterCut(line: string): unknown {
  const at = line.lastIndexOf('{"runId":');
  if (at <= 0 || !line.trimStart().startsWith('{')) return undefined;
  try {
    return JSON.parse(line.slice(at));
  } catch {
    return undefined;
  }
}
