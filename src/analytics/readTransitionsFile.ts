import { readFileSync } from 'node:fs';
import { AnalyticsError } from '../errors/AnalyticsError.js';
import { describeValue } from '../graph/describeValue.js';
import { TransitionRecord } from './TransitionRecord.js';

/**
 * Reads the records a `JsonlTransitionRecorder` wrote. A line cut short by a process that died while
 * writing it (the start of a record, `{…` with no closing `}`) is skipped, wherever it is: the
 * recorder that appends next starts on a new line, and a record another recorder appended right
 * after it on the same line is kept. Any other line that is not a record (edited by
 * hand) throws AnalyticsError `invalid_transition_record` naming its line; a file that cannot be
 * read (missing, a directory, no permission) throws AnalyticsError `unreadable_file`.
 *
 * @example
 * analyzeTransitions(readTransitionsFile('transitions.jsonl'));
 */
export function readTransitionsFile(file: string): TransitionRecord[] {
  if (typeof file !== 'string' || file.trim() === '') {
    throw new AnalyticsError(`readTransitionsFile(file): expected the path of a JSONL transitions file (a non-empty string); received ${describeValue(file)}`, 'unreadable_file');
  }
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file (a JsonlTransitionRecorder creates it at its first write)' : (error as Error).message;
    throw new AnalyticsError(`readTransitionsFile: cannot read ${file}: ${reason}; check the path`, 'unreadable_file');
  }
  // An editor may have saved it with a byte-order mark, which JSON.parse takes for text.
  const lines = (text.startsWith('\uFEFF') ? text.slice(1) : text).split('\n');
  const records: TransitionRecord[] = [];
  lines.forEach((line, i) => {
    if (line.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      // The last write of a process that died can be cut short, and a writer already running appends
      // its next record right after it: that record is kept, the piece before it dropped.
      value = recordAfterCut(line);
      if (value === undefined) {
        // Anything else is damage.
        if (i === lines.length - 1 || cutShort(line)) return;
        throw new AnalyticsError(`${file} line ${i + 1} is not JSON; each line must be one TransitionRecord: mend or delete it`, 'invalid_transition_record');
      }
    }
    const parsed = TransitionRecord.safeParse(value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new AnalyticsError(`${file} line ${i + 1} is not a TransitionRecord: ${issue?.path.join('.') || 'record'} ${issue?.message ?? 'is invalid'}`, 'invalid_transition_record');
    }
    records.push(parsed.data);
  });
  return records;
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
