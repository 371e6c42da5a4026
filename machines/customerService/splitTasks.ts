import type { CoordinatorTask } from 'switchboard/engine';
import type { Classification } from './Classification.js';

/**
 * The coordinator's tasks for a composite request: the tasks `classify` planned (at most `max`),
 * each with an id such as `tool-2`.
 *
 * @example
 * splitTasks({ route: 'multi', confidence: 0.9, tasks: [{ kind: 'rag', input: 'Return policy' }, { kind: 'tool', input: 'Refund SO20261001' }] });
 * // [{ kind: 'rag', input: 'Return policy', id: 'rag-1' }, { kind: 'tool', input: 'Refund SO20261001', id: 'tool-2' }]
 */
export function splitTasks(classification: Classification | undefined, max = 4): CoordinatorTask[] {
  return (classification?.tasks ?? []).slice(0, max).map((t, i) => ({ kind: t.kind, input: t.input, id: `${t.kind}-${i + 1}` }));
}
