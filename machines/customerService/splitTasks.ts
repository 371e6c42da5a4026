import type { CoordinatorTask } from 'switchboard';
import { classifyText } from './Classification.js';

/**
 * Splits a composite request into typed tasks for the coordinator (at most `max`): the message is
 * cut into clauses at commas, semicolons and "and", and each clause that names a policy topic, an
 * order or the sales report becomes a task for that specialist. Clauses of the same kind merge.
 *
 * @example
 * splitTasks('Explain the return policy, the refund for SO20261001, and the September sales report.');
 * // [{ kind: 'rag', … }, { kind: 'tool', … }, { kind: 'report', … }]
 */
export function splitTasks(message: string, max = 4): CoordinatorTask[] {
  const lead = /^(please\s+)?(explain|tell me|give me|show me|check|what (is|are))\s+/i.exec(message)?.[0] ?? '';
  const clauses = message
    .slice(lead.length)
    .split(/,|;|\band\b/i)
    .map((c) => c.replace(/[.?!]+$/, '').trim())
    .filter((c) => c.length > 0);
  const tasks: CoordinatorTask[] = [];
  for (const clause of clauses) {
    const route = classifyText(clause).route;
    const kind = route === 'rag' ? 'rag' : route === 'tool' ? 'tool' : route === 'report' ? 'report' : null;
    if (kind === null) continue;
    const input = `${lead.trim() ? `${lead.trim()} ` : ''}${clause}`.replace(/^./, (c) => c.toUpperCase());
    const same = tasks.find((t) => t.kind === kind);
    if (same) same.input = `${same.input}; ${clause}`;
    else if (tasks.length < max) tasks.push({ kind, input, id: `${kind}-${tasks.length + 1}` });
  }
  return tasks;
}
