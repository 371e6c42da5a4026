import { Agent, AgentRunError, createModelFromEnv, tool, type AgentNode, type Clock, type ModelClient, type Tool } from 'switchboard/engine';
import { z } from 'zod';
import { checkToolBudget } from './checkToolBudget.js';
import { createOrderTools } from './createOrderTools.js';
import { findOrderId, planOrderStep, type RefundQuestion } from './planOrderStep.js';
import { ToolPlan, toolObservationsOf, toolRoundsOf, type PlannedToolCall, type ToolObservation } from './ToolLoopState.js';
import { requestHandoff } from '../shared/Handoff.js';
import { questionOf } from '../shared/questionOf.js';
import { specialistNode } from '../shared/specialistNode.js';

/** Options for {@link toolPlanNode}. */
export interface ToolPlanNodeOptions {
  /** Default: `createModelFromEnv()`; offline, {@link planOrderStep} decides. */
  model?: ModelClient;
  /** The tools the model is offered (default: `lookup_order`, `calculate_refund`); pass the same list to `toolExecuteNode`. */
  tools?: readonly Tool[];
  clock?: Clock;
  /** Most tool rounds per run (default 4); `state.toolBudget` overrides it. */
  budget?: number;
  /** Offline: whether a question asks about money back, so a refund is estimated (default: keywords). */
  asksForRefund?: RefundQuestion;
}

/** The order planner's system prompt. */
export const ORDERS_PLANNER_INSTRUCTIONS =
  'You handle order questions for the Aero shop. Decide the single next step: call exactly one tool, or answer the customer in English. ' +
  'Order numbers look like SO20261001. Always call lookup_order before calculate_refund for the same order. ' +
  'If the customer gave no order number, ask for it and call no tool. Never repeat a call that already succeeded. ' +
  'When you state a refund amount, give it in CNY and say that it is an estimate.';

/** The default tool budget. */
export const DEFAULT_TOOL_BUDGET = 4;

/** The reason recorded in `handoff` when the budget is spent. */
export const BUDGET_SPENT_REASON = 'tool loop reached budget';

function plannerInput(question: string, observations: readonly ToolObservation[], orderId: string | undefined, left: number): string {
  const results =
    observations.length === 0
      ? '(none yet)'
      : observations
          .map((o) => `${o.round}. ${o.name} ${JSON.stringify(o.arguments)} → ${o.ok ? `ok ${JSON.stringify(o.output)}` : `failed (${o.code}): ${o.error}`}`)
          .join('\n');
  const hint = orderId === undefined ? '' : `\nOrder number noted by the classifier: ${orderId}`;
  return `Customer message: ${question}${hint}\n\nTool results so far:\n${results}\n\nTool rounds left: ${left}.`;
}

/**
 * The `tool_plan` node: decides the next tool call or the final answer, through the `orders` agent
 * (one model turn; the model is offered `lookup_order`, and `calculate_refund` only once a lookup
 * has succeeded — the agent's `allowedTools(state)`). Offline, {@link planOrderStep} decides. The
 * planned call is not run here: `tool_execute` runs it.
 *
 * Reads `question`, `orderId` (optional, from `classify`), `toolObservations`, `toolRounds`,
 * `toolBudget`. Writes `toolPlan` ({@link ToolPlan}) and:
 * - `call`: `pendingToolCall`; returns `{ outputText: null, toolCalls: [call] }`;
 * - `answer` / `ask`: `toolAnswer`; returns the text (`ask` = no order number, no tool called);
 * - `budget_spent` (a call was wanted but `toolRounds` reached the budget): `handoff` =
 *   `{ reason: 'tool loop reached budget', node: 'tool_plan' }`; returns `'budget spent'`.
 * Route on it with {@link toolPlanRouter}.
 *
 * @example
 * graph.addNode('tool_plan', toolPlanNode({ model }))
 *   .addConditionalEdges('tool_plan', toolPlanRouter, { call: 'tool_execute', answer: 'draft', ask: 'draft', budget_spent: 'human_handoff' });
 */
export function toolPlanNode(options: ToolPlanNodeOptions = {}): AgentNode {
  checkToolBudget('toolPlanNode', options.budget);
  const model = options.model ?? createModelFromEnv();
  const tools = options.tools ?? Object.values(createOrderTools(options.clock === undefined ? {} : { clock: options.clock }));
  const names = tools.map((t) => t.name);
  // The planner's tools only record the decision; tool_execute runs the real ones.
  const proxies = tools.map((t) => tool({ name: t.name, description: t.description, parameters: t.parameters, execute: () => ({ deferred: true }) }));
  return specialistNode('tool_plan', async (ctx, request, emit) => {
    const question = questionOf(ctx, request);
    const observations = toolObservationsOf(ctx);
    const rounds = toolRoundsOf(ctx);
    const budget = z.number().int().nonnegative().safeParse(ctx.get('toolBudget')).data ?? options.budget ?? DEFAULT_TOOL_BUDGET;
    const hint = z.string().min(1).safeParse(ctx.get('orderId')).data;
    // The offline rule is worked out only when the offline model asks for it.
    const step = () => planOrderStep(question, observations, hint, options.asksForRefund);
    const agent = new Agent({
      name: 'orders',
      instructions: ORDERS_PLANNER_INSTRUCTIONS,
      model,
      tools: proxies,
      maxIterations: 1,
      allowedTools: (turn) => {
        const seen = turn.workflow === undefined ? [] : toolObservationsOf(turn.workflow);
        return seen.some((o) => o.ok && o.name === 'lookup_order') ? names : names.filter((n) => n !== 'calculate_refund');
      },
      offline: () => {
        const next = step();
        return next.kind === 'call' ? { toolCalls: [{ name: next.name, arguments: next.arguments }] } : next.text;
      },
    });
    const result = await agent.newSession().run(plannerInput(question, observations, hint, Math.max(0, budget - rounds)), { signal: ctx.signal, workflow: ctx });
    if (result.status === 'cancelled') throw new AgentRunError('the orders planner was cancelled before it decided', { code: 'run_cancelled', agent: 'orders' });
    const wanted = result.toolCalls[0];
    let plan: ToolPlan;
    if (wanted !== undefined) {
      const call: PlannedToolCall = { callId: `call_${rounds + 1}`, name: wanted.name, arguments: wanted.arguments };
      if (rounds >= budget) {
        plan = { action: 'budget_spent', call, reason: BUDGET_SPENT_REASON };
        requestHandoff(ctx, BUDGET_SPENT_REASON, 'tool_plan');
        ctx.put('pendingToolCall', null);
      } else {
        plan = { action: 'call', call };
        ctx.put('pendingToolCall', call);
      }
    } else {
      const text = result.outputText ?? '';
      const asked = rounds === 0 && hint === undefined && findOrderId(question) === undefined;
      plan = { action: asked ? 'ask' : 'answer', text };
      ctx.put('toolAnswer', text);
    }
    ctx.put('toolPlan', plan);
    emit({ type: 'tool.plan', action: plan.action, ...(plan.call ? { call: plan.call } : {}), rounds, budget });
    if (plan.action === 'call') return { outputText: null, toolCalls: [plan.call] };
    return plan.action === 'budget_spent' ? 'budget spent' : (plan.text ?? '');
  });
}

export { toolPlanRouter } from './toolPlanRouter.js';
