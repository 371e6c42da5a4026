import { readFileSync } from 'node:fs';
import { AnalyticsError } from '../errors/AnalyticsError.js';
import { TransitionRecord } from './TransitionRecord.js';

/**
 * Reads the records a `JsonlTransitionRecorder` wrote. A line that is not a record (cut short by a
 * crash, edited by hand) throws AnalyticsError `invalid_transition_record` naming its line, except
 * a last line cut short, which is skipped.
 *
 * @example
 * analyzeTransitions(readTransitionsFile('transitions.jsonl'));
 */
export function readTransitionsFile(file: string): TransitionRecord[] {
  const lines = readFileSync(file, 'utf8').split('\n');
  const records: TransitionRecord[] = [];
  lines.forEach((line, i) => {
    if (line.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      // The last write of a process that died can be cut short; anything else is damage.
      if (i === lines.length - 1) return;
      throw new AnalyticsError(`${file} line ${i + 1} is not JSON; each line must be one TransitionRecord`, 'invalid_transition_record');
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
