import { randomUUID } from 'node:crypto';
import { setup, type AnyActorLogic, type StateMachine, type StateValue } from 'xstate';
import { COMPILE_NODE, isCompilableNode } from './CompilableNode.js';
import type { CompiledNode, GraphSpec } from './GraphSpec.js';
import type { GraphMachineContext, GraphMachineEvent, GraphMachineInput, GraphMachineOutput, RouteChoice } from './GraphMachineContext.js';
import { isHumanNode, type HumanNode } from './humanNode.js';
import { machineActions, type HopOutcome } from './machineActions.js';
import { findSpec, registerSpec } from './machineSpecs.js';
import { nodeActor } from './nodeActor.js';
import { runNodeDirectly } from './runNodeDirectly.js';
import { emptyPath, readPath } from './PathLog.js';
import { checkMaxSteps, toRequest } from './RunOptions.js';
import { adoptPendingRuntime } from './runtimeOf.js';
import { FINAL_STATES, stateKey } from './stateKey.js';
import type { RunStatus } from './WorkflowRun.js';
import { WorkflowExecutionError } from '../errors/WorkflowExecutionError.js';
import { newTraceContext } from '../trace/TraceContext.js';
import { initialBudget } from '../budget/Budget.js';
import { budgetRefusal } from '../errors/BudgetError.js';

const FINAL_STATUS: Record<(typeof FINAL_STATES)[number], RunStatus> = {
  completed: 'completed',
  maxSteps: 'max-steps',
  failed: 'failed',
  cancelled: 'cancelled',
  budgetExceeded: 'budget-exceeded',
};

/** Where a run goes when a budget is spent: the graph's `onBudgetExceeded` node, or the `budgetExceeded` final state. */
const budgetTarget = (spec: GraphSpec, root: string): string => `${root}.${spec.budgetNode?.key ?? 'budgetExceeded'}`;

/**
 * The hops out of a node in priority order, as guarded transitions: the fuse, a routing failure,
 * every target of the conditional groups and the transitions, then the end. `action` is the
 * assignment that applies the step (`completeNode`) or only reports it (`reportRoute`).
 */
function hops(spec: GraphSpec, node: CompiledNode, root: string, action: 'completeNode' | 'reportRoute') {
  const hop = (outcome: HopOutcome) => [{ type: action, params: { nodeId: node.id, key: node.key, outcome } }];
  const list: object[] = [];
  // A spent budget stops the run before the next step (and before the fuse would).
  const budgetActions = action === 'completeNode' ? hop('budget') : [{ type: 'stopAfterRoute', params: { nodeId: node.id, key: node.key } }];
  list.push({ guard: 'budgetSpent', target: budgetTarget(spec, root), reenter: true, actions: budgetActions });
  if (spec.fused) list.push({ guard: 'fuseSpent', target: `${root}.maxSteps`, actions: hop('fuse') });
  list.push({ guard: 'routeFailed', target: `${root}.failed`, actions: hop('routeFailed') });
  node.routes.forEach((route, entry) => {
    list.push({
      guard: { type: 'routedTo', params: { entry, kind: route.kind, index: route.index, to: route.to, ...(route.keys ? { keys: route.keys } : {}) } },
      target: `${root}.${route.toKey ?? 'completed'}`,
      // A self-loop must leave and re-enter the node so its actor runs again.
      reenter: true,
      actions: hop('edge'),
    });
  });
  list.push({ target: `${root}.completed`, actions: hop('edge') });
  return list;
}

/** A node: a state that invokes the node actor (id = node id) and leaves by the first matching hop. */
function nodeState(spec: GraphSpec, node: CompiledNode, root: string) {
  const params = { nodeId: node.id, key: node.key };
  return {
    entry: [{ type: 'enterNode', params }],
    invoke: {
      id: node.id,
      src: node.key,
      input: ({ context }: { context: GraphMachineContext }) => ({ runId: context.runId, request: context.request, step: context.steps }),
      onDone: hops(spec, node, root, 'completeNode'),
      onError: errorHops(spec, params, root),
    },
  };
}

/** How a node's failure leaves it: a model call a spent budget refused stops the run for the budget; anything else fails it. */
function errorHops(spec: GraphSpec, params: { nodeId: string; key: string }, root: string) {
  return [
    { guard: 'budgetRefused', target: budgetTarget(spec, root), reenter: true, actions: [{ type: 'refuseForBudget', params }] },
    { target: `${root}.failed`, actions: [{ type: 'failNode', params }] },
  ];
}

/**
 * A node of a graph's model (see {@link compileModel}): no actor; it leaves on the done (or error)
 * event its actor would send, so every node of the model, a coordinator's too, moves on events alone.
 * In a machine that runs its nodes directly (see {@link directMachine}), the entry also starts the
 * node, whose outcome is sent back as those events.
 */
function modelNodeState(spec: GraphSpec, node: CompiledNode, root: string, run: boolean) {
  const params = { nodeId: node.id, key: node.key };
  return {
    entry: run ? [{ type: 'enterNode', params }, { type: 'runNode', params }] : [{ type: 'enterNode', params }],
    on: {
      [`xstate.done.actor.${node.id}`]: hops(spec, node, root, 'completeNode'),
      [`xstate.error.actor.${node.id}`]: errorHops(spec, params, root),
    },
  };
}

/** A human node: no actor; the run waits until a `human.reply` event, then routes from here. */
function humanState(spec: GraphSpec, node: CompiledNode, root: string) {
  const params = { nodeId: node.id, key: node.key };
  return {
    initial: 'waiting',
    states: {
      waiting: {
        entry: [
          { type: 'enterNode', params },
          { type: 'enterWaiting', params },
        ],
        on: { 'human.reply': { guard: { type: 'validReply', params }, target: 'routing', actions: [{ type: 'completeHuman', params }] } },
      },
      routing: { always: hops(spec, node, root, 'reportRoute') },
    },
  };
}

function createContext(spec: GraphSpec, given: GraphMachineInput): GraphMachineContext {
  const input = spec.io !== undefined && given !== null && typeof given === 'object' && !('request' in given) ? spec.io.input(given) : given;
  if (input === null || typeof input !== 'object') {
    throw new WorkflowExecutionError('graph machine input must be { request, runId?, maxSteps?, state? }', { code: 'graph_definition' });
  }
  const maxSteps = input.maxSteps === undefined ? spec.maxSteps : checkMaxSteps(input.maxSteps, `graph "${spec.name}" input`);
  return {
    runId: input.runId ?? randomUUID(),
    graph: spec.name,
    trace: input.trace ?? newTraceContext(),
    request: toRequest(input.request),
    result: null,
    state: spec.state.initial(input.state),
    path: emptyPath(),
    steps: 0,
    maxSteps: spec.fused ? maxSteps : spec.nodes.length,
    status: 'running',
    inFlight: null,
    delta: null,
    durationMs: 0,
    waiting: null,
    decision: null,
    error: null,
    budget: initialBudget(input.budget, `graph "${spec.name}" input budget`),
    ...(input.breakpoints === undefined ? {} : { breakpoints: input.breakpoints }),
  };
}

function toOutput(context: GraphMachineContext): GraphMachineOutput {
  return {
    runId: context.runId,
    status: context.status === 'running' ? 'failed' : context.status,
    result: context.result,
    outputText: context.result?.outputText ?? null,
    path: readPath(context.path),
    steps: context.steps,
    state: context.state,
    error: context.error,
    waiting: context.waiting,
    budget: context.budget,
  };
}

/** The decision a hop's guard reads: from the node actor's output, or (after a human reply) the context. */
const choiceOf = (context: GraphMachineContext, event: object): RouteChoice | null =>
  (event as { output?: { decision?: RouteChoice } }).output?.decision ?? context.decision;

/**
 * Compiles a validated graph into an XState v5 machine: one state per node (key = escaped node id)
 * invoking the node actor (id = node id), whose `onDone` lists the next hops as guarded transitions
 * in priority order; human nodes wait for a `human.reply` event instead. Final states: completed,
 * maxSteps, failed, cancelled.
 */
function buildMachine(spec: GraphSpec, mode: 'invoke' | 'model' | 'direct' = 'invoke') {
  const machineId = stateKey(spec.name);
  const root = `#${machineId}`;
  const actors: Record<string, AnyActorLogic> = {};
  const states: Record<string, object> = {};
  const extraActions: Record<string, unknown> = {};
  const extraGuards: Record<string, unknown> = {};
  for (const node of spec.nodes) {
    if (isHumanNode(node.node)) {
      states[node.key] = humanState(spec, node, root);
    } else if (mode === 'model') {
      states[node.key] = modelNodeState(spec, node, root, false);
    } else if (isCompilableNode(node.node)) {
      const params = { nodeId: node.id, key: node.key };
      const own = node.node[COMPILE_NODE]({
        node,
        root,
        enterActions: () => [{ type: 'enterNode', params }],
        routingHops: () => hops(spec, node, root, 'reportRoute'),
        errorHops: (nodeId) => errorHops(spec, { nodeId, key: stateKey(nodeId) }, root),
        name: (local) => `${node.key}::${local}`,
      });
      states[node.key] = own.state;
      Object.assign(actors, own.actors);
      Object.assign(extraActions, own.actions);
      Object.assign(extraGuards, own.guards);
    } else if (mode === 'direct') {
      states[node.key] = modelNodeState(spec, node, root, true);
    } else {
      actors[node.key] = nodeActor(node);
      states[node.key] = nodeState(spec, node, root);
    }
  }
  for (const name of FINAL_STATES) {
    states[name] = { type: 'final', entry: [{ type: 'recordFinalStatus', params: { status: FINAL_STATUS[name] } }] };
  }

  const machine = setup({
    types: {
      context: {} as GraphMachineContext,
      input: {} as GraphMachineInput,
      output: {} as GraphMachineOutput,
      events: {} as GraphMachineEvent,
    },
    actors,
    guards: {
      ...(extraGuards as Record<string, never>),
      fuseSpent: ({ context, event }) => {
        const choice = choiceOf(context, event);
        return choice !== null && choice.entry !== -2 && !choice.toEnd && context.steps >= context.maxSteps;
      },
      routeFailed: ({ context, event }) => choiceOf(context, event)?.entry === -2,
      budgetSpent: ({ context, event }) => {
        const choice = choiceOf(context, event);
        return choice?.budget !== undefined && choice.entry !== -2 && !choice.toEnd;
      },
      budgetRefused: ({ context, event }) => context.budget !== null && context.budget.exceeded === null && budgetRefusal((event as { error?: unknown }).error) !== null,
      budgetTimeUp: ({ context }) => context.budget !== null && context.budget.exceeded === null && context.status === 'running',
      routedTo: ({ context, event }, params: { entry: number }) => choiceOf(context, event)?.entry === params.entry,
      validReply: ({ event }, { key }: { key: string }) => event.type === 'human.reply' && (spec.byKey.get(key)?.node as HumanNode).checkReply(event.reply).ok,
    },
    // The action implementations take loosely typed arguments; XState's inferred ones are narrower.
    actions: { ...extraActions, ...machineActions(spec), runNode: runNodeDirectly(spec) } as never,
  }).createMachine({
    id: machineId,
    context: ({ input, self }) => {
      const context = createContext(spec, input);
      adoptPendingRuntime(self, context.trace);
      return context;
    },
    initial: spec.start === null ? 'completed' : spec.start.key,
    entry: 'reportRunStarted' as never,
    on: {
      'workflow.cancel': { target: '.cancelled', actions: 'reportNodeCancelled' as never },
      'workflow.budget': { guard: 'budgetTimeUp' as never, target: budgetTarget(spec, root).slice(root.length), actions: 'stopForTime' as never },
    },
    // Built dynamically from the graph; XState cannot type-check a config it has not seen.
    states: states as never,
    output: ({ context }) => (spec.io === undefined ? toOutput(context) : spec.io.output(toOutput(context), context)),
  });
  return machine;
}

/**
 * Compiles a validated graph into an XState v5 machine (see {@link buildMachine}) and remembers the
 * graph it came from.
 */
export function compileMachine(spec: GraphSpec): GraphMachine {
  const machine = buildMachine(spec);
  registerSpec(machine, spec);
  return machine as unknown as GraphMachine;
}

const models = new WeakMap<GraphSpec, GraphMachine>();

/**
 * The graph's model: the same states, hops, guards and actions as its machine, but no `invoke` —
 * each node waits for the done (or error) event its actor would send, and a coordinator is one
 * such node. What `createTestModel` accepts (it refuses machines that invoke actors); its events
 * are those of the machine, so a path found on the model drives the machine step by step too.
 */
export function compileModel(spec: GraphSpec): GraphMachine {
  let model = models.get(spec);
  if (model === undefined) {
    model = buildMachine(spec, 'model') as unknown as GraphMachine;
    registerSpec(model, spec);
    models.set(spec, model);
  }
  return model;
}

const directs = new WeakMap<GraphSpec, GraphMachine>();

/**
 * The graph's machine for runs held in memory from start to end: the same states, hops, guards,
 * actions and events as its machine, but each node runs as a plain promise started by the node's
 * entry (see `runNodeDirectly`) instead of an invoked child actor. Its persisted snapshot cannot
 * re-run a node in flight, so durable and restored runs use the invoking machine; a snapshot taken
 * at a wait (no node in flight) is the same in both.
 */
export function directMachine(spec: GraphSpec): GraphMachine {
  let machine = directs.get(spec);
  if (machine === undefined) {
    machine = buildMachine(spec, 'direct') as unknown as GraphMachine;
    registerSpec(machine, spec);
    directs.set(spec, machine);
  }
  return machine;
}

/** True for a machine made by {@link compileModel}. */
export function isGraphModel(machine: object): boolean {
  const spec = findSpec(machine);
  return spec !== undefined && models.get(spec) === machine;
}

/** The validated graph a machine was compiled from (for hashing and resuming). */
export function specOf(machine: object): GraphSpec {
  const spec = findSpec(machine);
  if (spec === undefined) {
    throw new WorkflowExecutionError('this machine was not compiled by Switchboard; pass graph.toMachine() or the graph itself', { code: 'internal' });
  }
  return spec;
}

type CompiledMachine = ReturnType<typeof buildMachine>;

/** A node state's value: its id (the state key: `.`, `#` and `%` percent-encoded), or its id with a sub-state for human nodes and coordinators. */
export type GraphStateValue<N extends string = string> = N | (typeof FINAL_STATES)[number] | { [K in N]?: StateValue };

/**
 * The machine type every graph compiles to. `N` is the graph's node ids, so
 * `snapshot.matches('review')` accepts the ids of a graph built by chaining; without it (the
 * default) the machine stands for any graph's.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type GraphMachine<N extends string = any> =
  CompiledMachine extends StateMachine<infer C, infer E, infer Ch, infer A, infer Ac, infer G, infer D, infer _V, infer T, infer I, infer O, infer Em, infer Me, infer Sc, infer TM>
    ? StateMachine<C, E, Ch, A, Ac, G, D, GraphStateValue<N>, T, I, O, Em, Me, Sc, TM>
    : never;
