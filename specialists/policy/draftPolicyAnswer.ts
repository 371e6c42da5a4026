import { Agent, createModelFromEnv, type ModelClient, type WorkflowContext } from 'switchboard/engine';
import type { PolicyHit } from './searchPolicies.js';
import { answerWith } from '../shared/answerWith.js';

/** The policy writer's system prompt. */
export const POLICY_WRITER_INSTRUCTIONS =
  'You answer customer questions about Aero products using only the policy passages you are given. ' +
  'Cite every passage you use with its id in square brackets, for example [KB001]. Never cite an id that is not listed. ' +
  'If no passage answers the question, say so and cite nothing. Answer in English, in at most four sentences.';

/** Options for {@link draftPolicyAnswer}. */
export interface DraftPolicyAnswerOptions {
  /** Default: `createModelFromEnv()`; offline, {@link composePolicyAnswer} answers. */
  model?: ModelClient;
  /** Why the previous draft was rejected, so the writer can fix it. */
  feedback?: string;
  signal?: AbortSignal;
  /** The node's context: the writer's model call is reported into its run. */
  workflow?: WorkflowContext;
}

/**
 * The offline policy writer: the best passage, plus the second when it scores at least half as
 * well, each followed by its citation. With no passage it says nothing was found and cites nothing.
 */
export function composePolicyAnswer(passages: readonly PolicyHit[]): string {
  const best = passages[0];
  if (best === undefined) return 'I could not find a policy document that answers this question.';
  const used = passages.slice(0, 2).filter((p) => p === best || p.score >= best.score / 2);
  return `According to our policy: ${used.map((p) => `${p.text} [${p.id}]`).join(' ')}`;
}

/** The writer's input: the question, the passages with their ids, and any review feedback. */
export function policyWriterInput(question: string, passages: readonly PolicyHit[], feedback?: string): string {
  const listed = passages.length === 0 ? '(no passages were found)' : passages.map((p) => `[${p.id}] ${p.title}: ${p.text}`).join('\n');
  const review = feedback ? `\n\nYour previous draft was rejected: ${feedback}. Write it again.` : '';
  return `Question: ${question}\n\nPassages:\n${listed}${review}`;
}

/**
 * Drafts an answer to a policy question from retrieved passages, citing the ids it uses as
 * `[KB001]`. Runs the `policy_writer` agent (a fresh session each call) on the given model;
 * offline its rule is {@link composePolicyAnswer}.
 *
 * @example
 * const passages = searchPolicies('Aero headphones return policy');
 * await draftPolicyAnswer('Can I return my headphones?', passages, { model: new OfflineModel() });
 * // 'According to our policy: Aero headphones and Aero earbuds can be returned within 7 days … [KB001]'
 */
export function draftPolicyAnswer(question: string, passages: readonly PolicyHit[], options: DraftPolicyAnswerOptions = {}): Promise<string> {
  const agent = new Agent({
    name: 'policy_writer',
    instructions: POLICY_WRITER_INSTRUCTIONS,
    model: options.model ?? createModelFromEnv(),
    maxIterations: 1,
    offline: () => composePolicyAnswer(passages),
  });
  return answerWith(agent, policyWriterInput(question, passages, options.feedback), {
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    ...(options.workflow === undefined ? {} : { workflow: options.workflow }),
  });
}
