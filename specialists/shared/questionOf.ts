import type { AgentRequest, WorkflowContext } from 'switchboard/engine';

/** The shared-state key holding the customer's message (written by `ingest`, or by the first specialist node that runs). */
export const QUESTION_KEY = 'question';

/**
 * The customer's question: the `question` string in the shared state when there is one; otherwise
 * the request's input, which is then stored under `question` so later nodes (whose request input
 * is an earlier node's output) still see the original message.
 *
 * @example
 * const question = questionOf(ctx, request); // 'Check order SO20261001 for me…'
 */
export function questionOf(ctx: WorkflowContext, request: AgentRequest): string {
  const stored = ctx.get(QUESTION_KEY);
  if (typeof stored === 'string' && stored.trim() !== '') return stored;
  const input = request.input;
  const question = typeof input === 'string' ? input : input === undefined || input === null ? '' : JSON.stringify(input);
  ctx.put(QUESTION_KEY, question);
  return question;
}
