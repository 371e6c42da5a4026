import { END, StateGraph, createModelFromEnv, lazyNode, modelNode, type Clock, type ModelCatalog, type ModelClient, type Tool } from 'switchboard/engine';
import { checkToolBudget } from './checkToolBudget.js';
import type { RefundQuestion } from './planOrderStep.js';
import { toolPlanRouter } from './toolPlanRouter.js';

/** Options for {@link ordersGraph}. */
export interface OrdersGraphOptions {
  /** Default: `createModelFromEnv()` (offline without `OPENAI_API_KEY`). */
  model?: ModelClient;
  /** The models a run chooses from by its state's `model` (see `modelNode`); wins over `model`. */
  models?: ModelCatalog;
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
 * with reason "tool loop reached budget" and the output is "budget spent"). The planner's and the
 * tools' modules load when `tool_plan` or `tool_execute` first runs.
 *
 * @example
 * const run = await ordersGraph({ model: new OfflineModel() }).run('Check order SO20261001 and see how much can be refunded.');
 * run.path; // ['tool_plan', 'tool_execute', 'tool_plan', 'tool_execute', 'tool_plan']
 */
export function ordersGraph(options: OrdersGraphOptions = {}): StateGraph {
  const models = options.models ?? options.model ?? createModelFromEnv();
  checkToolBudget('ordersGraph', options.budget);
  let tools: Promise<readonly Tool[]> | undefined;
  // One set of tools for both nodes, made when the first of them runs.
  const toolsOf = () =>
    (tools ??= options.tools
      ? Promise.resolve(options.tools)
      : import('./createOrderTools.js').then((m) => Object.values(m.createOrderTools(options.clock === undefined ? {} : { clock: options.clock }))));
  return new StateGraph({ name: 'tool', maxSteps: 64 })
    .addNode(
      'tool_plan',
      modelNode('tool_plan', models, (model) =>
        lazyNode('tool_plan', async () =>
          (await import('./toolPlanNode.js')).toolPlanNode({
            model,
            tools: await toolsOf(),
            ...(options.budget === undefined ? {} : { budget: options.budget }),
            ...(options.asksForRefund === undefined ? {} : { asksForRefund: options.asksForRefund }),
          }),
        ),
      ),
    )
    .addNode(
      'tool_execute',
      lazyNode('tool_execute', async () =>
        (await import('./toolExecuteNode.js')).toolExecuteNode({ tools: await toolsOf(), ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }) }),
      ),
    )
    .start('tool_plan')
    .addConditionalEdges('tool_plan', toolPlanRouter, { call: 'tool_execute', answer: END, ask: END, budget_spent: END })
    .addEdge('tool_execute', 'tool_plan');
}
