import { assign, type AnyActorRef } from 'xstate';
import type { NodeCompileScope, CompiledNodeState } from '../graph/CompilableNode.js';
import type { GraphMachineContext, GraphMachineOutput } from '../graph/GraphMachineContext.js';
import { runtimeOf } from '../graph/RunRuntime.js';
import { bookkeep, contextOf, settleAndRoute, type StepArgs } from '../graph/stepKit.js';
import type { Workflow } from '../graph/Workflow.js';
import { newSpanId } from '../trace/TraceContext.js';
import { WorkflowExecutionError } from '../errors/WorkflowExecutionError.js';
import { describeThrown, serializeError } from '../errors/SwitchboardError.js';
import { CoordinatorTask, type TaskResult } from './CoordinatorTask.js';

/** What the dispatch state needs from its coordinator. */
export interface DispatchConfig {
  specialists: Readonly<Record<string, Workflow>>;
  maxTasks: number;
  shareState: readonly string[];
  exportState: readonly string[];
  tasksKey: string;
  resultsKey: string;
  /** Why a specialist's final state asks for a human, or null when it does not. */
  needsHuman: (state: Record<string, unknown>) => string | null;
}

const tasksIn = (context: GraphMachineContext, key: string): CoordinatorTask[] =>
  Array.isArray(context.state[key]) ? (context.state[key] as CoordinatorTask[]) : [];

/** A JSON copy of the parent's whitelisted state keys: the specialist's isolated starting state. */
function sharedState(context: GraphMachineContext, keys: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of keys) if (key in context.state) out[key] = JSON.parse(JSON.stringify(context.state[key] ?? null));
  return out;
}

function resultOf(task: CoordinatorTask, index: number, runId: string, config: DispatchConfig, output: GraphMachineOutput): TaskResult {
  const state = output.state;
  const exported: Record<string, unknown> = {};
  for (const key of config.exportState) if (key in state) exported[key] = state[key];
  const humanReason = config.needsHuman(state);
  const needsHuman = humanReason !== null;
  const reason = humanReason ?? output.error?.message ?? null;
  return { index, kind: task.kind, input: task.input, runId, status: output.status, outputText: output.outputText, needsHuman, reason, path: output.path, error: output.error, output: exported };
}

/**
 * The coordinator's part of the machine: a parallel state with one region per task slot. Each
 * region picks the specialist machine for its task's kind and invokes it as a child actor with an
 * isolated request, state and trace path (`root/<kind>[n]`); the parallel state is done when every
 * region is — a real join — and only then are the results, in task order, handed to routing.
 */
export function dispatchState(config: DispatchConfig, scope: NodeCompileScope): CompiledNodeState {
  const { node } = scope;
  const params = { nodeId: node.id, key: node.key };
  const kinds = Object.keys(config.specialists);
  const n = {
    prepare: scope.name('prepare'),
    taskIs: scope.name('taskIs'),
    taskDone: scope.name('taskDone'),
    taskFailed: scope.name('taskFailed'),
    join: scope.name('join'),
  };
  // When each run's dispatch began, for the node's duration (runs are distinct actors, keyed by run id).
  const startedAt = new Map<string, number>();
  const actors = Object.fromEntries(kinds.map((kind) => [scope.name(`specialist:${kind}`), config.specialists[kind]!.toMachine()]));

  const childInput = (context: GraphMachineContext, self: AnyActorRef, index: number, kind: string) => {
    const task = tasksIn(context, config.tasksKey)[index]!;
    return {
      request: { input: task.input },
      runId: `${context.runId}/${kind}[${index + 1}]`,
      state: sharedState(context, config.shareState),
      trace: {
        traceId: context.trace.traceId,
        spanId: newSpanId(),
        parentSpanId: runtimeOf(self).nodeSpanId ?? context.trace.spanId,
        path: `${context.trace.path}/${kind}[${index + 1}]`,
      },
    };
  };

  /** The state with the task's result recorded (a new object), after reporting it. */
  const record = (args: StepArgs, index: number, result: TaskResult) => {
    const results = [...((args.context.state[config.resultsKey] as TaskResult[] | undefined) ?? [])];
    results[index] = result;
    const state = bookkeep(args, args.context.state, { [config.resultsKey]: results });
    const runtime = runtimeOf(args.self);
    if (runtime.listening) {
      runtime.emit(args.context.runId, { type: 'specialist.completed', nodeId: node.id, index, kind: result.kind, specialistRunId: result.runId, status: result.status, needsHuman: result.needsHuman });
    }
    return { state };
  };

  const regions: Record<string, object> = {};
  for (let index = 0; index < config.maxTasks; index++) {
    const specialistStates: Record<string, object> = {};
    for (const kind of kinds) {
      specialistStates[kind] = {
        invoke: {
          id: `${node.id}/${kind}[${index + 1}]`,
          src: scope.name(`specialist:${kind}`),
          input: ({ context, self }: { context: GraphMachineContext; self: AnyActorRef }) => childInput(context, self, index, kind),
          onDone: { target: 'done', actions: [{ type: n.taskDone, params: { index } }] },
          onError: { target: 'done', actions: [{ type: n.taskFailed, params: { index, kind } }] },
        },
      };
    }
    regions[`task${index + 1}`] = {
      initial: 'pick',
      states: {
        pick: { always: [...kinds.map((kind) => ({ guard: { type: n.taskIs, params: { index, kind } }, target: kind })), { target: 'done' }] },
        ...specialistStates,
        done: { type: 'final' },
      },
    };
  }

  return {
    actors,
    guards: {
      [n.taskIs]: ({ context }: { context: GraphMachineContext }, p: { index: number; kind: string }) => tasksIn(context, config.tasksKey)[p.index]?.kind === p.kind,
    },
    actions: {
      [n.prepare]: assign((args: StepArgs) => {
        const raw = args.context.state[config.tasksKey];
        const parsed = CoordinatorTask.array().max(config.maxTasks).safeParse(raw);
        const unknown = parsed.success ? parsed.data.find((t) => !(t.kind in config.specialists)) : undefined;
        if (!parsed.success || unknown !== undefined) {
          const why = parsed.success ? `unknown specialist kind "${unknown!.kind}" (known: ${kinds.join(', ')})` : parsed.error.issues.map((i) => `${i.path.join('.') || config.tasksKey}: ${i.message}`).join('; ');
          const error = new WorkflowExecutionError(`coordinator "${node.id}": the tasks in state "${config.tasksKey}" are not valid: ${why}; write at most ${config.maxTasks} tasks { kind, input }`, { code: 'invalid_tasks', nodeId: node.id });
          runtimeOf(args.self).error = error;
          return { state: bookkeep(args, args.context.state, { [config.tasksKey]: [] }), error: error.toJSON() };
        }
        startedAt.set(args.context.runId, runtimeOf(args.self).clock.now());
        return { state: bookkeep(args, args.context.state, { [config.tasksKey]: parsed.data, [config.resultsKey]: [] }) };
      }),
      [n.taskDone]: assign((args: StepArgs, { index }: { index: number }) => {
        const output = args.event.output as GraphMachineOutput;
        return record(args, index, resultOf(tasksIn(args.context, config.tasksKey)[index]!, index, output.runId, config, output));
      }),
      [n.taskFailed]: assign((args: StepArgs, { index, kind }: { index: number; kind: string }) => {
        const task = tasksIn(args.context, config.tasksKey)[index]!;
        const error = serializeError(args.event.error);
        const runId = `${args.context.runId}/${kind}[${index + 1}]`;
        return record(args, index, { index, kind, input: task.input, runId, status: 'failed', outputText: null, needsHuman: false, reason: `specialist failed: ${describeThrown(args.event.error)}`, path: [], error, output: {} });
      }),
      [n.join]: assign((args: StepArgs) => {
        const ctx = contextOf(args);
        // The results become part of this step's delta, so the node's completion shows them.
        ctx.put(config.resultsKey, args.context.state[config.resultsKey] ?? []);
        const failed = args.context.error;
        const clock = runtimeOf(args.self).clock;
        const began = startedAt.get(args.context.runId) ?? clock.now();
        startedAt.delete(args.context.runId);
        const settled = settleAndRoute(args, node, null, clock.now() - began);
        return failed === null ? settled : { ...settled, decision: { entry: -2, toEnd: false }, error: failed };
      }),
    },
    state: {
      entry: [...scope.enterActions(), { type: n.prepare, params }],
      initial: 'dispatch',
      states: {
        dispatch: { type: 'parallel', states: regions, onDone: { target: 'routing', actions: [{ type: n.join, params }] } },
        routing: { always: scope.routingHops() },
      },
    },
  };
}
