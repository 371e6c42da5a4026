import { WorkflowExecutionError } from '../errors/WorkflowExecutionError.js';
import { durationBudgetSignal } from '../budget/BudgetMeter.js';
import type { Agent } from '../agent/Agent.js';
import type { ModelClient } from '../model/ModelClient.js';
import { AgentContext } from './AgentContext.js';
import type { Judge, JudgeScore } from './jury.js';
import type { Step } from './Step.js';
import { stepSignal } from './stepSignal.js';

const textOf = (input: unknown): string => (typeof input === 'string' ? input : (JSON.stringify(input) ?? String(input)));

/** Adds a call's tokens to `ACCUMULATED_TOKENS`. */
function addTokens(ctx: AgentContext, tokens: number | undefined): AgentContext {
  if (tokens === undefined || tokens === 0) return ctx;
  return ctx.mutate().with(AgentContext.ACCUMULATED_TOKENS, (ctx.get(AgentContext.ACCUMULATED_TOKENS) ?? 0) + tokens).build();
}

/**
 * One model call as a step: `{input}` in the template is replaced by the input (JSON for
 * non-text), the answer's text is the output, and its tokens are added to `ACCUMULATED_TOKENS`.
 * The call goes by the step's name, so an `OfflineModel` rule under that name answers offline.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function chatStep(model: ModelClient, template: string, name = 'chat'): Step<any, string> {
  const used = new WeakMap<AgentContext, number>();
  return Object.freeze({
    name,
    kind: 'agent' as const,
    async execute(ctx: AgentContext, input: unknown): Promise<string> {
      // The step's signal: a cancelled run stops the call (the model client joins the duration budget to it).
      const signal = stepSignal(ctx);
      const response = await model.complete({ messages: [{ role: 'user', content: template.split('{input}').join(textOf(input)) }], tools: [], agent: name, ...(signal === undefined ? {} : { signal }) });
      if (response.usage.totalTokens !== undefined) used.set(ctx, response.usage.totalTokens);
      return response.text ?? '';
    },
    updateContext: (ctx: AgentContext) => addTokens(ctx, used.get(ctx)),
  });
}

/** An `Agent` run as a step (`kind: 'agent'`): a fresh session per run, its answer the output, its tokens counted. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function agentStep(agent: Agent): Step<any, string> {
  const used = new WeakMap<AgentContext, number>();
  return Object.freeze({
    name: agent.name,
    kind: 'agent' as const,
    async execute(ctx: AgentContext, input: unknown): Promise<string> {
      // The run's cancel and its duration budget reach the agent's tool calls (and its model calls) through the session's signal.
      const signals = [stepSignal(ctx), durationBudgetSignal()].filter((s): s is AbortSignal => s !== undefined);
      const signal = signals.length < 2 ? signals[0] : AbortSignal.any(signals);
      const result = await agent.newSession().run(textOf(input), signal === undefined ? {} : { signal });
      if (result.status !== 'completed') {
        throw new WorkflowExecutionError(`agent "${agent.name}" ended ${result.status}${result.error === undefined ? '' : `: ${result.error.message}`}`, { code: 'agent_failed', nodeId: agent.name });
      }
      used.set(ctx, result.usage.totalTokens);
      return result.outputText ?? '';
    },
    updateContext: (ctx: AgentContext) => addTokens(ctx, used.get(ctx)),
  });
}

/**
 * A judge that asks a model to score an output against a rubric: JSON `{ score: 0..1, reasons }`.
 * An answer without a number makes the judge inconclusive. The call goes by the name `judge`.
 */
export function llmJudge(model: ModelClient, rubric: string): Judge {
  return async (_ctx, output): Promise<JudgeScore> => {
    const response = await model.complete({
      messages: [
        { role: 'system', content: `Score the text against this rubric from 0 to 1. Rubric: ${rubric}\nAnswer with JSON {"score": number, "reasons": [string]}.` },
        { role: 'user', content: textOf(output) },
      ],
      tools: [],
      responseFormat: {
        type: 'json_schema',
        name: 'judge',
        schema: { type: 'object', properties: { score: { type: 'number' }, reasons: { type: 'array', items: { type: 'string' } } }, required: ['score', 'reasons'], additionalProperties: false },
        strict: true,
      },
      agent: 'judge',
    });
    let parsed: { score?: unknown; reasons?: unknown };
    try {
      parsed = JSON.parse(response.text ?? '') as typeof parsed;
    } catch {
      throw new WorkflowExecutionError(`llmJudge: the model answered ${JSON.stringify((response.text ?? '').slice(0, 60))}, not JSON {"score", "reasons"}`, { code: 'invalid_node_result' });
    }
    if (typeof parsed?.score !== 'number') throw new WorkflowExecutionError('llmJudge: the model gave no numeric score', { code: 'invalid_node_result' });
    return { score: parsed.score, reasons: Array.isArray(parsed.reasons) ? parsed.reasons.map(String) : [] };
  };
}
