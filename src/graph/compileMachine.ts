import { randomUUID } from 'node:crypto';
import { fromPromise, setup } from 'xstate';
import { END } from './END.js';
import type { CompiledNode, GraphSpec } from './GraphSpec.js';
import type {
  GraphMachineContext,
  GraphMachineEvent,
  GraphMachineInput,
  GraphMachineOutput,
  NodeActorInput,
  NodeActorOutput,
} from './GraphMachineContext.js';
import { machineActions } from './machineActions.js';
import { checkMaxSteps, toRequest } from './RunOptions.js';
import { runNode } from './runNode.js';
import { runtimeOf } from './RunRuntime.js';
import { FINAL_STATES, stateKey } from './stateKey.js';
import { isHumanNode } from './humanNode.js';
import type { RunStatus } from './WorkflowRun.js';
import { WorkflowExecutionError } from '../errors/WorkflowExecutionError.js';

const FINAL_STATUS: Record<(typeof FINAL_STATES)[number], RunStatus> = {
  completed: 'completed',
  maxSteps: 'max-steps',
  failed: 'failed',
  cancelled: 'cancelled',
};

/** The XState actor that executes one node. Its input is JSON, so it is persisted while in flight. */
function nodeActor(node: CompiledNode) {
  return fromPromise<NodeActorOutput, NodeActorInput>(async ({ input, signal, self }) => {
    const parent = self._parent;
    if (parent === undefined) {
      throw new WorkflowExecutionError(`node actor "${node.id}" must be invoked by its graph machine`, {
        code: 'internal',
        nodeId: node.id,
      });
    }
    const runtime = runtimeOf(parent);
    const ctx =
      runtime.context ?? runtime.bind(input.runId, (parent.getSnapshot() as { context: GraphMachineContext }).context.state);
    // Checkpoints of the previous step are written before this node starts.
    await runtime.barrier();
    ctx.beginStep(input.step, signal);
    const started = runtime.clock.now();
    const result = await runNode(node.node, node.id, ctx, input.request, runtime);
    return { result, durationMs: runtime.clock.now() - started };
  });
}

/** One node: a `running` state that invokes the node actor, then a `routing` state of guarded hops. */
function nodeState(spec: GraphSpec, node: CompiledNode, root: string) {
  const params = { nodeId: node.id, key: node.key };
  const entryOf = (toKey: string) => (isHumanNode(spec.byKey.get(toKey)!.node) ? 'waiting' : 'running');
  const target = (toKey: string | null) => (toKey === null ? `${root}.completed` : `${root}.${toKey}.${entryOf(toKey)}`);
  const always: object[] = [];
  if (spec.fused) always.push({ guard: 'fuseSpent', target: `${root}.maxSteps` });
  always.push({ guard: 'routeFailed', target: `${root}.failed`, actions: [{ type: 'emitRouteFailed', params }] });
  node.routes.forEach((route, entry) => {
    always.push({
      guard: { type: 'routedTo', params: { entry, kind: route.kind, index: route.index, to: route.to, ...(route.keys ? { keys: route.keys } : {}) } },
      target: target(route.toKey),
      actions: [{ type: 'emitEdge', params }],
    });
  });
  always.push({ target: `${root}.completed`, actions: [{ type: 'emitEdge', params }] });
  if (isHumanNode(node.node)) return humanState(params, always);
  return {
    initial: 'running',
    states: {
      running: {
        entry: [
          { type: 'enterNode', params },
          { type: 'emitNodeStarted', params },
        ],
        invoke: {
          id: node.id,
          src: node.key,
          input: ({ context }: { context: GraphMachineContext }): NodeActorInput => ({
            runId: context.runId,
            request: context.request,
            step: context.steps,
          }),
          onDone: {
            target: 'routing',
            actions: [
              { type: 'completeNode', params },
              { type: 'emitNodeCompleted', params },
              { type: 'decideRoute', params },
            ],
          },
          onError: {
            target: `${root}.failed`,
            actions: [
              { type: 'failNode', params },
              { type: 'emitNodeFailed', params },
            ],
          },
        },
      },
      routing: { always },
    },
  };
}

/** A human node: no actor; the run waits in `waiting` until a `human.reply` event arrives. */
function humanState(params: { nodeId: string; key: string }, always: object[]) {
  return {
    initial: 'waiting',
    states: {
      waiting: {
        entry: [
          { type: 'enterNode', params },
          { type: 'emitNodeStarted', params },
          { type: 'enterWaiting', params },
          { type: 'emitRunWaiting', params },
        ],
        on: {
          'human.reply': {
            guard: 'validReply',
            target: 'routing',
            actions: [
              { type: 'completeHuman', params },
              { type: 'emitNodeCompleted', params },
              { type: 'decideRoute', params },
            ],
          },
        },
      },
      routing: { always },
    },
  };
}

function createContext(spec: GraphSpec, input: GraphMachineInput): GraphMachineContext {
  if (input === null || typeof input !== 'object') {
    throw new WorkflowExecutionError('graph machine input must be { request, runId?, maxSteps?, state? }', { code: 'graph_definition' });
  }
  const maxSteps = input.maxSteps === undefined ? spec.maxSteps : checkMaxSteps(input.maxSteps, `graph "${spec.name}" input`);
  return {
    runId: input.runId ?? randomUUID(),
    graph: spec.name,
    request: toRequest(input.request),
    result: null,
    state: { ...input.state },
    path: [],
    steps: 0,
    maxSteps: spec.fused ? maxSteps : spec.nodes.length,
    status: 'running',
    inFlight: null,
    delta: null,
    durationMs: 0,
    waiting: null,
    decision: null,
    error: null,
  };
}

function toOutput(context: GraphMachineContext): GraphMachineOutput {
  return {
    runId: context.runId,
    status: context.status === 'running' ? 'failed' : context.status,
    result: context.result,
    outputText: context.result?.outputText ?? null,
    path: context.path,
    steps: context.steps,
    state: context.state,
    error: context.error,
    waiting: context.waiting,
  };
}

/**
 * Compiles a validated graph into an XState v5 machine: one compound state per node (key = escaped
 * node id) whose `running` child invokes the node actor (id = node id) and whose `routing` child
 * lists the next hops as guarded transitions in priority order — the fuse, a routing failure, the
 * conditional groups' targets, the transitions, then the end. Final states: completed, maxSteps,
 * failed, cancelled.
 */
export function compileMachine(spec: GraphSpec) {
  const machineId = stateKey(spec.name);
  const root = `#${machineId}`;
  const actors: Record<string, ReturnType<typeof nodeActor>> = {};
  const states: Record<string, object> = {};
  for (const node of spec.nodes) {
    actors[node.key] = nodeActor(node);
    states[node.key] = nodeState(spec, node, root);
  }
  for (const name of FINAL_STATES) {
    states[name] = { type: 'final', entry: [{ type: 'finish', params: { status: FINAL_STATUS[name] } }] };
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
      fuseSpent: ({ context }) =>
        context.decision !== null && context.decision.to !== null && context.decision.to !== END && context.steps >= context.maxSteps,
      routeFailed: ({ context }) => context.decision?.kind === 'error',
      routedTo: ({ context }, params: { entry: number }) => context.decision?.entry === params.entry,
      validReply: ({ event }) => event.type === 'human.reply' && typeof event.reply === 'string',
    },
    // The action implementations take loosely typed arguments; XState's inferred ones are narrower.
    actions: machineActions(spec) as never,
  }).createMachine({
    id: machineId,
    context: ({ input }) => createContext(spec, input),
    initial: spec.start === null ? 'completed' : spec.start.key,
    entry: 'emitRunStarted' as never,
    on: { 'workflow.cancel': { target: '.cancelled', actions: 'emitNodeCancelled' as never } },
    // Built dynamically from the graph; XState cannot type-check a config it has not seen.
    states: states as never,
    output: ({ context }) => toOutput(context),
  });
  specs.set(machine, spec);
  return machine;
}

const specs = new WeakMap<object, GraphSpec>();

/** The validated graph a machine was compiled from (for hashing and resuming). */
export function specOf(machine: object): GraphSpec {
  const spec = specs.get(machine);
  if (spec === undefined) {
    throw new WorkflowExecutionError('this machine was not compiled by Switchboard; pass graph.toMachine() or the graph itself', { code: 'internal' });
  }
  return spec;
}

/** The machine type every graph compiles to. */
export type GraphMachine = ReturnType<typeof compileMachine>;
