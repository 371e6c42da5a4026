import { END, StateGraph, createModelFromEnv, type Clock, type ModelClient, type Tool } from 'switchboard/engine';
import { createOrderTools } from './createOrderTools.js';
import type { RefundQuestion } from './planOrderStep.js';
import { toolExecuteNode } from './toolExecuteNode.js';
import { toolPlanNode, toolPlanRouter } from './toolPlanNode.js';

/** Options for {@link ordersGraph}. */
export interface OrdersGraphOptions {
  /** Default: `createModelFromEnv()` (offline without `OPENAI_API_KEY`). */
  model?: ModelClient;
  /** Time delivery ages are measured against (default: the system clock). */
  clock?: Clock;
  /** Most tool rounds per run (default 4); `state.toolBudget` overrides it. */
  budget?: number;
  /** Per-call timeout in ms (default 10 000). */
  timeoutMs?: number;
  /** The tools it may call (default: `createOrderTools`, with `clock`). */
  tools?: readonly Tool[];
  /** Offline: whether a question asks about money back (default: keywords); see `toolPlanNode`. */
  asksForRefund?: RefundQuestion;
}

/**
 * The orders specialist as a subgraph named `tool`: `tool_plan` ⇄ `tool_execute` until the plan
 * answers, asks for the order number, or spends the budget (then `handoff` is recorded in state
 * with reason "tool loop reached budget" and the output is "budget spent").
 *
 * @example
 * const run = await ordersGraph({ model: new OfflineModel() }).run('Check order SO20261001 and see how much can be refunded.');
 * run.path; // ['tool_plan', 'tool_execute', 'tool_plan', 'tool_execute', 'tool_plan']
 */
export function ordersGraph(options: OrdersGraphOptions = {}): StateGraph {
  const model = options.model ?? createModelFromEnv();
  const tools = options.tools ?? Object.values(createOrderTools(options.clock === undefined ? {} : { clock: options.clock }));
  return new StateGraph({ name: 'tool', maxSteps: 64 })
    .addNode(
      'tool_plan',
      toolPlanNode({
        model,
        tools,
        ...(options.budget === undefined ? {} : { budget: options.budget }),
        ...(options.asksForRefund === undefined ? {} : { asksForRefund: options.asksForRefund }),
      }),
    )
    .addNode('tool_execute', toolExecuteNode({ tools, ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }) }))
    .start('tool_plan')
    .addConditionalEdges('tool_plan', toolPlanRouter, { call: 'tool_execute', answer: END, ask: END, budget_spent: END })
    .addEdge('tool_execute', 'tool_plan');
}
