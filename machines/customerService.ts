import { BUDGET_EXCEEDED, Coordinator, ModelCatalog, RUN_MODEL_KEY, StateGraph, describeExceeded, humanNode, lazyNode, modelNode, modelsFromEnv, type BudgetExceeded, type Clock, type ModelClient, type StateRouter, type Tool, type WorkflowContext } from 'switchboard/engine';
// Only the specialists' graph shapes, routers and shared state helpers are imported here; each
// specialist node's modules load when the node first runs (`lazyNode`), so a greeting never loads
// retrieval, the order tools, the report client or vision.
import { checkToolBudget } from '../specialists/orders/checkToolBudget.js';
import { ordersGraph } from '../specialists/orders/ordersGraph.js';
import { toolPlanRouter } from '../specialists/orders/toolPlanRouter.js';
import { policyGraph } from '../specialists/policy/policyGraph.js';
import { reviewVerdictRouter } from '../specialists/policy/reviewVerdictRouter.js';
import { reportGraph } from '../specialists/report/reportGraph.js';
import { handoffOf } from '../specialists/shared/Handoff.js';
import { MIN_CONFIDENCE, type Classification } from './customerService/Classification.js';
import { classifyNode } from './customerService/classifyNode.js';
import { draftNode } from './customerService/draftNode.js';
import { finishNode } from './customerService/finishNode.js';
import { ingestNode } from './customerService/ingestNode.js';
import { multiReviewNode } from './customerService/multiReviewNode.js';
import { describePersonPart, PERSON_PART_KEY, PersonPart } from './customerService/PersonPart.js';
import { personGraph } from './customerService/personGraph.js';
import { reviewNode } from './customerService/reviewNode.js';
import { splitTasks } from './customerService/splitTasks.js';
import { CUSTOMER_REPLY_KEY, askOrderReason, orderReplyNode, orderReplyRouter } from './customerService/orderReplyNode.js';
import { defaultUnderstanding } from './customerService/understanding/defaultUnderstanding.js';

/** Options for {@link customerService}. */
export interface CustomerServiceOptions {
  /** The model every agent uses, whatever a request asks for (ignored when `models` is given). */
  model?: ModelClient;
  /**
   * The models a run may choose from by its request's `metadata.model` (the workbench's model
   * select, `POST /api/runs` `model`); a run that names none uses the first. The chosen name is
   * stored in the run's state under `model`. Default: `modelsFromEnv()` (`offline` alone without
   * `OPENAI_API_KEY`), or `model` alone when given.
   */
  models?: ModelCatalog;
  /** Time order delivery ages are measured against (default: the system clock). */
  clock?: Clock;
  /**
   * The order tools the tool loop and the orders specialist call (default: `createOrderTools`, with
   * `clock`), e.g. versions that declare `sideEffects` and pass the idempotency key on.
   */
  tools?: readonly Tool[];
  /** Tool rounds allowed in the order loop (default 4; a request's `metadata.toolBudget` overrides it). */
  toolBudget?: number;
  /** Review rounds before the run goes to a person (default 3). */
  reviewRounds?: number;
}

const handoffReason = (ctx: WorkflowContext): string => {
  // A run whose budget (RunOptions.budget) is spent is handed to a person with what was spent.
  const spent = ctx.get<BudgetExceeded>(BUDGET_EXCEEDED);
  if (spent !== undefined) return `${describeExceeded(spent)}; a person takes over`;
  const part = PersonPart.safeParse(ctx.get(PERSON_PART_KEY)).data;
  return handoffOf(ctx)?.reason ?? (part ? describePersonPart(part) : undefined) ?? ctx.get<Classification>('classification')?.reason ?? 'the customer needs a person';
};

/**
 * The customer-service statechart: ingest → (vision, when an image is attached; human_handoff when
 * the picture cannot be read) → classify → one
 * route — `rag` (retrieve), `report` (report_mcp over MCP), `tool` (tool_plan ⇄ tool_execute),
 * `multi` (multi_plan → specialist → multi_review, specialists in parallel), `human`
 * (human_handoff), `general` — then draft → review → finish, with requery (retrieval gap), revise
 * (back to draft) and human_handoff (budgets spent — the tool loop's, or the run's `RunOptions.budget`
 * — or a specialist asking for a person).
 * An order question without an order number waits at `ask_order` for the customer's answer, which
 * `order_reply` reads before the order loop continues. Confidence below `MIN_CONFIDENCE` (0.4)
 * goes to human_handoff whatever the route; human_handoff waits for a reply. In a composite request,
a task for a person (a `human` task, a specialist that asks for a person, or one that fails) does not
drop the others: they are answered (draft → review), then the run waits at human_handoff for the
rest, and finish gives the answered part followed by the person's reply.
 */
export function customerService(options: CustomerServiceOptions = {}): StateGraph {
  const models = options.models ?? (options.model === undefined ? modelsFromEnv() : ModelCatalog.of(options.model));
  const clockOption = options.clock === undefined ? {} : { clock: options.clock };
  checkToolBudget('customerService', options.toolBudget);
  let toolSet: Promise<readonly Tool[]> | undefined;
  // The order tools of the order loop's two nodes and of the orders specialist, made once, when one of them first runs.
  const tools = () =>
    (toolSet ??= options.tools ? Promise.resolve(options.tools) : import('../specialists/orders/createOrderTools.js').then((m) => Object.values(m.createOrderTools(clockOption))));
  // Offline, whether an order question is about money back is read by the learned understanding,
  // so "send them back" or "what do I get" estimate a refund as "refund" does.
  const asksForRefund = (question: string) => defaultUnderstanding().orderIntent(question) === 'refund';
  const coordinator = new Coordinator({
    specialists: {
      rag: policyGraph({ models }),
      tool: ordersGraph({ models, ...(options.tools ? { tools: options.tools } : {}), asksForRefund, ...clockOption }),
      report: reportGraph({ models, ...clockOption }),
      human: personGraph(),
    },
    maxTasks: 4,
    shareState: ['faults', 'toolBudget', RUN_MODEL_KEY],
    exportState: ['retrieved', 'handoff'],
  });
  const routeOf = (ctx: WorkflowContext): string => {
    const c = ctx.get<Classification>('classification');
    return c === undefined || c.confidence < MIN_CONFIDENCE ? 'human' : c.route;
  };
  // Routes out of a specialist: on to the next node, or to a person when a specialist asked for one.
  const afterSpecialist = (ctx: WorkflowContext) => (handoffOf(ctx) ? 'handoff' : 'next');
  // An accepted answer to part of a composite request goes on to a person for the rest.
  const afterReview: StateRouter = (ctx, request, result) => {
    const verdict = reviewVerdictRouter(ctx, request, result);
    return verdict === 'accept' && ctx.get(PERSON_PART_KEY) !== undefined ? 'handoff' : verdict;
  };

  return new StateGraph({ name: 'customer-service', maxSteps: 40 })
    .addNode('ingest', ingestNode(models))
    .addNode('vision', modelNode('vision', models, (model) => lazyNode('vision', async () => (await import('../specialists/vision/visionNode.js')).visionNode({ model }))))
    .addNode('classify', modelNode('classify', models, (model) => classifyNode(model, clockOption)))
    .addNode('retrieve', lazyNode('retrieve', async () => (await import('../specialists/policy/retrieveNode.js')).retrieveNode()))
    .addNode('requery', lazyNode('requery', async () => (await import('../specialists/policy/requeryNode.js')).requeryNode()))
    .addNode('report_mcp', modelNode('report_mcp', models, (model) => lazyNode('report_mcp', async () => (await import('../specialists/report/reportMcpNode.js')).reportMcpNode({ model, ...clockOption }))))
    .addNode(
      'tool_plan',
      modelNode('tool_plan', models, (model) =>
        lazyNode('tool_plan', async () =>
          (await import('../specialists/orders/toolPlanNode.js')).toolPlanNode({ model, tools: await tools(), asksForRefund, ...(options.toolBudget === undefined ? {} : { budget: options.toolBudget }) }),
        ),
      ),
    )
    .addNode('tool_execute', lazyNode('tool_execute', async () => (await import('../specialists/orders/toolExecuteNode.js')).toolExecuteNode({ tools: await tools(), ...clockOption })))
    .addNode('ask_order', humanNode({ reason: askOrderReason, replyKey: CUSTOMER_REPLY_KEY }))
    .addNode('order_reply', orderReplyNode())
    .addNode('multi_plan', coordinator.planNode((ctx) => splitTasks(ctx.get<Classification>('classification'), coordinator.maxTasks)))
    .addNode('specialist', coordinator.dispatchNode())
    .addNode('multi_review', multiReviewNode())
    .addNode('draft', modelNode('draft', models, draftNode))
    .addNode('review', reviewNode(options.reviewRounds === undefined ? {} : { maxRounds: options.reviewRounds }))
    .addNode('human_handoff', humanNode({ reason: handoffReason }))
    .addNode('finish', finishNode())
    .start('ingest')
    .addConditionalEdges('ingest', (ctx) => (ctx.get('hasImage') === true ? 'image' : 'text'), { image: 'vision', text: 'classify' })
    .addConditionalEdges('vision', afterSpecialist, { next: 'classify', handoff: 'human_handoff' })
    .addConditionalEdges('classify', routeOf, {
      rag: 'retrieve',
      report: 'report_mcp',
      tool: 'tool_plan',
      multi: 'multi_plan',
      human: 'human_handoff',
      general: 'draft',
    })
    .addEdge('retrieve', 'draft')
    .addConditionalEdges('report_mcp', afterSpecialist, { next: 'draft', handoff: 'human_handoff' })
    .addConditionalEdges('tool_plan', toolPlanRouter, { call: 'tool_execute', answer: 'draft', ask: 'ask_order', budget_spent: 'human_handoff' })
    .addEdge('tool_execute', 'tool_plan')
    .addEdge('ask_order', 'order_reply')
    .addConditionalEdges('order_reply', orderReplyRouter, { lookup: 'tool_plan', ask: 'ask_order', handoff: 'human_handoff' })
    .addEdge('multi_plan', 'specialist')
    .addEdge('specialist', 'multi_review')
    .addConditionalEdges('multi_review', afterSpecialist, { next: 'draft', handoff: 'human_handoff' })
    .addEdge('draft', 'review')
    .addConditionalEdges('review', afterReview, { accept: 'finish', requery: 'requery', revise: 'draft', handoff: 'human_handoff' })
    .addEdge('requery', 'retrieve')
    .addEdge('human_handoff', 'finish')
    .onBudgetExceeded('human_handoff');
}
