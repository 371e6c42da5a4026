import { OfflineModel, resumeRun, type ModelClient, type WorkflowRun } from 'switchboard/engine';
import { customerService } from '../../customerService.js';
import { MIN_CONFIDENCE, type Classification, type Route } from '../Classification.js';
import type { LabelledMessage } from '../dataset/LabelledMessage.js';
import { PERSON_PART_KEY } from '../PersonPart.js';
import { checkFacts } from './checkFacts.js';
import { EvalReport, ratio, type EvalCase } from './EvalReport.js';

/** Options for {@link evaluateMessages}. */
export interface EvaluateOptions {
  /** The model every agent of the graph uses (default: the offline model). */
  model?: ModelClient;
  /** Messages run at once (default 2). */
  concurrency?: number;
  /** Called after each message. */
  onCase?: (c: EvalCase, done: number, total: number) => void;
  /** Name of the split, for the report (default `heldout`). */
  split?: string;
}

const ROUTES: Route[] = ['rag', 'tool', 'report', 'multi', 'human', 'general'];
const ENTITY_KEYS = ['orderId', 'period', 'faultCode'] as const;

/** The route the graph actually took: a classification below `MIN_CONFIDENCE` goes to a person. */
const routeTaken = (c: Classification | undefined): Route => (c === undefined || c.confidence < MIN_CONFIDENCE ? 'human' : c.route);

async function runOne(message: LabelledMessage, model: ModelClient, graphs: Map<string, ReturnType<typeof customerService>>): Promise<EvalCase> {
  let graph = graphs.get(message.now);
  if (graph === undefined) {
    const now = Date.parse(message.now);
    graph = customerService({ model, clock: { now: () => now } });
    graphs.set(message.now, graph);
  }
  let run: WorkflowRun;
  let error: string | undefined;
  try {
    run = await graph.run(message.text);
    if (run.status === 'waiting' && run.waiting?.nodeId === 'ask_order' && message.reply !== undefined) {
      run = await resumeRun(graph, run.runId, { reply: message.reply });
    }
    if (run.error) error = run.error.message;
  } catch (e) {
    error = e instanceof Error ? e.message : String(e);
    run = { runId: '', status: 'failed', result: null, outputText: null, path: [], steps: 0, state: new Map() } as unknown as WorkflowRun;
  }
  const classification = run.state.get('classification') as Classification | undefined;
  const route = routeTaken(classification);
  const entities = Object.fromEntries(ENTITY_KEYS.flatMap((k) => (classification?.[k] ? [[k, classification[k]!]] : [])));
  const expectedEntities = Object.fromEntries(ENTITY_KEYS.flatMap((k) => (message.entities[k] ? [[k, message.entities[k]!]] : [])));
  const tasks = route === 'multi' ? (classification?.tasks ?? []).map((t) => t.kind) : [];
  // A composite request whose rest went to a person has already answered its other tasks.
  const partial = run.status === 'waiting' && run.waiting?.nodeId === 'human_handoff' && run.state.has(PERSON_PART_KEY);
  const answer = run.status === 'completed' ? run.outputText : partial ? ((run.state.get('draft') as string | undefined) ?? null) : null;
  return {
    id: message.id,
    text: message.text,
    expectedRoute: message.route,
    route,
    routeOk: route === message.route,
    entitiesOk: ENTITY_KEYS.every((k) => entities[k] === expectedEntities[k]),
    expectedEntities,
    entities,
    tasksOk: message.tasks === undefined ? null : [...tasks].sort().join() === [...message.tasks].sort().join(),
    tasks,
    facts: checkFacts(message.facts, answer),
    status: run.status,
    path: run.path,
    answer,
    ...(error ? { error } : {}),
  };
}

/**
 * Runs labelled messages through the customer-service graph — each against its own clock, the
 * customer's reply given when the desk asks for an order number — and scores them: route taken,
 * entities read, task split of composite messages, and whether the final answer contains every
 * expected fact as an answer of the kind asked for ({@link checkFacts}: a refund amount stated as
 * money back, an order status without an unasked refund estimate). The same code measures the
 * offline model and any OpenAI-compatible one.
 *
 * @example
 * const report = await evaluateMessages(loadDataset('heldout'));
 * report.route.percent; // e.g. 96.9
 */
export async function evaluateMessages(messages: readonly LabelledMessage[], options: EvaluateOptions = {}): Promise<EvalReport> {
  const model = options.model ?? new OfflineModel();
  const started = Date.now();
  const graphs = new Map<string, ReturnType<typeof customerService>>();
  const cases: EvalCase[] = new Array(messages.length);
  let next = 0;
  let done = 0;
  const worker = async () => {
    while (next < messages.length) {
      const index = next++;
      cases[index] = await runOne(messages[index]!, model, graphs);
      options.onCase?.(cases[index]!, ++done, messages.length);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, options.concurrency ?? 2) }, worker));
  const confusion = Object.fromEntries(ROUTES.map((r) => [r, Object.fromEntries(ROUTES.map((p) => [p, 0]))]));
  for (const c of cases) confusion[c.expectedRoute]![c.route]! += 1;
  const withFacts = cases.filter((c) => c.facts.length > 0);
  const factsOk = (list: EvalCase[]) => ratio(list.filter((c) => c.facts.every((f) => f.found)).length, list.length);
  const multi = cases.filter((c) => c.tasksOk !== null);
  return EvalReport.parse({
    split: options.split ?? 'heldout',
    model: model.name,
    startedAt: new Date(started).toISOString(),
    durationMs: Date.now() - started,
    messages: cases.length,
    route: ratio(cases.filter((c) => c.routeOk).length, cases.length),
    entities: ratio(cases.filter((c) => c.entitiesOk).length, cases.length),
    tasks: ratio(multi.filter((c) => c.tasksOk).length, multi.length),
    facts: {
      all: factsOk(withFacts),
      ...Object.fromEntries(ROUTES.map((r) => [r, factsOk(withFacts.filter((c) => c.expectedRoute === r))]).filter(([, v]) => (v as { total: number }).total > 0)),
    },
    confusion,
    cases,
  });
}
