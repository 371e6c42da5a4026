import { assign, raise, sendTo, type AnyActorRef } from 'xstate';
import type { NodeCompileScope, CompiledNodeState } from '../graph/CompilableNode.js';
import type { GraphMachineContext } from '../graph/GraphMachineContext.js';
import { runtimeOf } from '../graph/runtimeOf.js';
import { bookkeep, contextOf, settleAndRoute, type StepArgs } from '../graph/stepKit.js';
import type { RunnableGraph } from '../graph/RunnableGraph.js';
import { RUN_MODEL_KEY, startedModel } from '../graph/modelNode.js';
import { WorkflowExecutionError } from '../errors/WorkflowExecutionError.js';
import { describeThrown, type SwitchboardErrorCode } from '../errors/SwitchboardError.js';
import type { z } from 'zod';
import type { CoordinatorTask, TaskResult } from './CoordinatorTask.js';
import type { FailurePolicy } from './FailurePolicy.js';
import type { CoordinatorWaitingEvent, JoinInput, JoinOutput } from './JoinState.js';
import { joinLogic } from './joinLogic.js';
import { remoteSpecialist } from './remoteSpecialist.js';

/** What the dispatch state needs from its coordinator. */
export interface DispatchConfig {
  specialists: Readonly<Record<string, RunnableGraph>>;
  /** Refuse plans with more tasks than this (no limit by default). */
  maxTasks: number;
  /** The schema of a plan: an array of at most `maxTasks` tasks. */
  plan: z.ZodType<CoordinatorTask[]>;
  shareState: readonly string[];
  exportState: readonly string[];
  tasksKey: string;
  resultsKey: string;
  /** Why a specialist's final state asks for a human, or null when it does not. */
  needsHuman: (state: Record<string, unknown>) => string | null;
  policy: FailurePolicy;
}

const tasksIn = (context: GraphMachineContext, key: string): CoordinatorTask[] =>
  Array.isArray(context.state[key]) ? (context.state[key] as CoordinatorTask[]) : [];

/** True for a task that ended because a budget of the run was spent (a model call of its specialist was refused). */
const refusedByBudget = (result: TaskResult): boolean => result.status === 'budget-exceeded' || (result.status === 'failed' && result.error?.code === 'budget_exceeded');

/** The parent's whitelisted state keys as JSON text: each specialist parses its own isolated copy. */
function sharedState(context: GraphMachineContext, keys: readonly string[]): string {
  const out: Record<string, unknown> = {};
  for (const key of keys) if (key in context.state) out[key] = context.state[key] ?? null;
  return JSON.stringify(out);
}

/**
 * `runModel` to record before dispatching, when it is shared and no node recorded one yet: the
 * model the run was started with (the request's `metadata.model`, what `--model` and
 * `POST /api/runs` send), as a `modelNode` records it, so the specialists run on it.
 */
function startModel(context: GraphMachineContext, keys: readonly string[]): Record<string, string> {
  if (!keys.includes(RUN_MODEL_KEY) || typeof context.state[RUN_MODEL_KEY] === 'string') return {};
  const asked = startedModel(context.request);
  return asked !== undefined ? { [RUN_MODEL_KEY]: asked } : {};
}

/**
 * The coordinator's part of the machine: one state that invokes a join actor over the planned
 * tasks. The join runs every task's specialist machine as its own child actor with an isolated
 * request, state and trace path (`root/<kind>[n]`), however many tasks there are, and is done when
 * every task is — then the results, in task order, are handed to routing (or the failure policy
 * fails the run). While every specialist still out waits for a person, the run waits here; a
 * `human.reply` goes on to that specialist.
 */
export function dispatchState(config: DispatchConfig, scope: NodeCompileScope): CompiledNodeState {
  const { node } = scope;
  const params = { nodeId: node.id, key: node.key };
  const kinds = Object.keys(config.specialists);
  const n = {
    prepare: scope.name('prepare'),
    join: scope.name('join'),
    joined: scope.name('joined'),
    joinFailed: scope.name('joinFailed'),
    wait: scope.name('wait'),
    answer: scope.name('answer'),
    isWaiting: scope.name('isWaiting'),
    nothingToDispatch: scope.name('nothingToDispatch'),
    skipped: scope.name('skipped'),
  };
  const machines = Object.fromEntries(kinds.map((kind) => [kind, config.specialists[kind]!.toMachine()]));
  const limit = Number.isFinite(config.maxTasks) ? `at most ${config.maxTasks} ` : '';

  const joinInput = ({ context, self }: { context: GraphMachineContext; self: AnyActorRef }): JoinInput => {
    const runtime = runtimeOf(self);
    return {
      nodeId: node.id,
      parentRunId: context.runId,
      // Invalid tasks failed the step in `prepare`: nothing is dispatched then.
      tasks: context.error === null ? tasksIn(context, config.tasksKey) : [],
      shared: sharedState(context, config.shareState),
      trace: { traceId: context.trace.traceId, parentSpanId: runtime.nodeSpanId ?? context.trace.spanId, path: context.trace.path },
      startedAt: runtime.clock.now(),
      step: context.steps,
      // On a worker of the run queue, each specialist is a stored run of its own (a child job). A
      // specialist run's own dispatch (its id already names a parent) runs in its process.
      remote: runtime.specialistRuns !== null && !context.runId.includes(':'),
    };
  };

  const finish = (args: StepArgs, output: JoinOutput | null, failure: WorkflowExecutionError | null) => {
    const ctx = contextOf(args);
    // The results become part of this step's delta, so the node's completion shows them.
    ctx.put(config.resultsKey, output?.results ?? args.context.state[config.resultsKey] ?? []);
    const runtime = runtimeOf(args.self);
    const began = output?.startedAt ?? runtime.clock.now();
    const settled = settleAndRoute(args, node, output === null ? null : { rawResponse: output.summary }, runtime.clock.now() - began);
    // A specialist whose model call the run's budget refused left its work undone: the run stops
    // for the budget here (or goes to the graph's onBudgetExceeded node), whatever the next hop and
    // the failure policy would have been, as it does when a node's own model call is refused.
    const spent = output !== null && output.results.some(refusedByBudget) ? (runtime.meter?.check() ?? null) : null;
    if (spent !== null) return { ...settled, decision: { entry: -1, toEnd: false, budget: spent }, error: null };
    const invalid = args.context.error;
    const failed = failure ?? (invalid === null ? null : (runtime.error ?? new WorkflowExecutionError(invalid.message, { code: invalid.code as SwitchboardErrorCode, nodeId: node.id })));
    if (failed === null) return settled;
    runtime.error = failed;
    return { ...settled, decision: { entry: -2, toEnd: false }, error: failed.toJSON() };
  };

  return {
    actors: { [n.join]: joinLogic({ machines, policy: config.policy, exportState: config.exportState, needsHuman: config.needsHuman, remote: remoteSpecialist(machines) }) },
    guards: {
      [n.isWaiting]: ({ context }: { context: GraphMachineContext }) => context.status === 'waiting',
      // No join actor for an empty or invalid plan: the step settles at once (and a pure `transition` sees it).
      [n.nothingToDispatch]: ({ context }: { context: GraphMachineContext }) => context.error !== null || tasksIn(context, config.tasksKey).length === 0,
    },
    actions: {
      [n.prepare]: assign((args: StepArgs) => {
        const raw = args.context.state[config.tasksKey];
        const parsed = config.plan.safeParse(raw);
        const unknown = parsed.success ? parsed.data.find((t) => !Object.hasOwn(config.specialists, t.kind)) : undefined;
        if (!parsed.success || unknown !== undefined) {
          const why = parsed.success ? `unknown specialist kind "${unknown!.kind}" (known: ${kinds.join(', ')})` : parsed.error.issues.map((i) => `${i.path.join('.') || config.tasksKey}: ${i.message}`).join('; ');
          const error = new WorkflowExecutionError(`coordinator "${node.id}": the tasks in state "${config.tasksKey}" are not valid: ${why}; write ${limit}tasks { kind, input }`, { code: 'invalid_tasks', nodeId: node.id });
          runtimeOf(args.self).error = error;
          return { state: bookkeep(args, args.context.state, { [config.tasksKey]: [] }), error: error.toJSON() };
        }
        return { state: bookkeep(args, args.context.state, { [config.tasksKey]: parsed.data, [config.resultsKey]: [], ...startModel(args.context, config.shareState) }) };
      }),
      [n.joined]: assign((args: StepArgs) => {
        const output = args.event.output as JoinOutput;
        const failure = output.failure === null ? null : new WorkflowExecutionError(output.failure.message, { code: output.failure.code as SwitchboardErrorCode, nodeId: node.id });
        return finish(args, output, failure);
      }),
      [n.skipped]: assign((args: StepArgs) => {
        const { minCompleted } = config.policy;
        const startedAt = runtimeOf(args.self).clock.now();
        const empty: JoinOutput = { results: [], summary: { tasks: 0, completed: 0, failed: 0, cancelled: 0, maxSteps: 0, problems: [] }, failure: null, startedAt };
        const failure =
          args.context.error === null && minCompleted > 0
            ? new WorkflowExecutionError(`coordinator "${node.id}" needs at least ${minCompleted} completed tasks but the plan has none`, { code: 'too_few_completed', nodeId: node.id })
            : null;
        return finish(args, args.context.error === null ? empty : null, failure);
      }),
      [n.joinFailed]: assign((args: StepArgs) =>
        finish(args, null, new WorkflowExecutionError(`coordinator "${node.id}": the join failed: ${describeThrown(args.event.error)}`, { code: 'internal', nodeId: node.id, cause: args.event.error })),
      ),
      [n.wait]: assign((args: StepArgs) => {
        const { waiting } = args.event as unknown as CoordinatorWaitingEvent;
        const runtime = runtimeOf(args.self);
        if (runtime.listening) runtime.emit(args.context.runId, { type: 'run.waiting', nodeId: node.id, step: args.context.steps, reason: waiting.reason });
        return { status: 'waiting' as const, waiting: { ...waiting, since: runtime.clock.now() } };
      }),
      [n.answer]: assign(() => ({ status: 'running' as const, waiting: null })),
    },
    state: {
      entry: [...scope.enterActions(), { type: n.prepare, params }],
      initial: 'start',
      states: {
        start: { always: [{ guard: n.nothingToDispatch, target: 'skip' }, { target: 'dispatch' }] },
        // Settled on an event of its own: the hops' guards must not read the previous node's decision
        // from the event that entered this node.
        skip: { entry: raise({ type: 'coordinator.skip' }), on: { 'coordinator.skip': { target: 'routing', actions: [{ type: n.skipped, params }] } } },
        dispatch: {
          invoke: {
            id: node.id,
            src: n.join,
            input: joinInput,
            onDone: { target: 'routing', actions: [{ type: n.joined, params }] },
            onError: { target: 'routing', actions: [{ type: n.joinFailed, params }] },
          },
          on: {
            'coordinator.waiting': { actions: [{ type: n.wait, params }] },
            'human.reply': { guard: n.isWaiting, actions: [{ type: n.answer, params }, sendTo(node.id, ({ event }) => event)] },
          },
        },
        routing: { always: scope.routingHops() },
      },
    },
  };
}
