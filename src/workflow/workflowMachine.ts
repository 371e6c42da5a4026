import { registerCompiled } from './compiledOf.js';
import { randomUUID } from 'node:crypto';
import type { GraphNode, StateRouter } from '../graph/AgentNode.js';
import { buildGraphSpec, type GraphDefinition } from '../graph/buildGraphSpec.js';
import { compileMachine, type GraphMachine } from '../graph/compileMachine.js';
import { END } from '../graph/END.js';
import type { GraphMachineContext, GraphMachineInput, GraphMachineOutput } from '../graph/GraphMachineContext.js';
import type { MachineIo } from '../graph/GraphSpec.js';
import { humanNode } from '../graph/humanNode.js';
import { readPath } from '../graph/PathLog.js';
import { WorkflowExecutionError } from '../errors/WorkflowExecutionError.js';
import { StateModel } from '../state/StateModel.js';
import type { TraceContext } from '../trace/TraceContext.js';
import { AgentContext } from './AgentContext.js';
import type { CompiledWorkflow, NodeRuntime } from './compileWorkflow.js';
import { contextFromObject } from './executeStep.js';
import { forkNode } from './forkNode.js';
import { END_ROUTE, WORKFLOW_KEYS, childReplyKey, fanOutReplyKey, forkKey, heldChildKey, type EarlyEnd } from './workflowKeys.js';
import { fanOutWaitReason, firstWaitingItem, type FanOutHeld } from './runFanOut.js';
import type { HeldChild } from './runSubWorkflow.js';
import { finalResult, workflowNode } from './workflowNodes.js';
import { personRouter, PersonReply, PERSON_REPLY_KEY } from './personRouter.js';

/** What a workflow's machine accepts: `{ input, runId?, context?, maxIterations? }`. */
export interface WorkflowMachineInput {
  input: unknown;
  runId?: string;
  context?: Record<string, unknown>;
  maxIterations?: number;
  /** The trace to run under (set when a parent run starts this workflow as a sub-workflow). */
  trace?: TraceContext;
}

/** What a workflow's machine resolves to: the engine's output plus the workflow's. */
export interface WorkflowMachineOutput extends GraphMachineOutput {
  output: unknown;
  context: Record<string, unknown>;
}

const routeOf: StateRouter = (_ctx, _request, result) => {
  const route = (result?.rawResponse as { route?: unknown } | undefined)?.route;
  return typeof route === 'string' ? route : null;
};

/** A sub-workflow's wait routes back to its step, whatever the reply. */
const noRoute: StateRouter = () => null;

const earlyEnd = (context: GraphMachineContext): EarlyEnd | null => {
  const raw = context.result?.rawResponse as EarlyEnd | undefined;
  return raw?.route === END_ROUTE ? raw : null;
};

/** The workflow's input, context and fuse as the engine's machine input. */
export function toMachineInput(raw: WorkflowMachineInput, name: string): GraphMachineInput {
  const runId = raw.runId ?? randomUUID();
  const context: Record<string, unknown> = { ...(raw.context ?? {}), [AgentContext.WORKFLOW_RUN_ID.name]: runId, [AgentContext.WORKFLOW_NAME.name]: name };
  if ((raw as { budget?: unknown }).budget !== undefined) {
    // Budgets need the run around the machine (its meter, its duration timer): refused here rather than ignored.
    throw new WorkflowExecutionError(
      `a budget in the machine input is not enforced: a machine started with createActor has no budgets; pass { budget } to workflow.run(input, { budget }) (or resumeRun), or run this workflow as a step of a run that has one`,
      { code: 'invalid_input' },
    );
  }
  if (raw.maxIterations !== undefined) {
    if (!Number.isInteger(raw.maxIterations) || raw.maxIterations < 0) {
      throw new WorkflowExecutionError(`maxIterations must be a whole number ≥ 0 (loop passes per run); received ${String(raw.maxIterations)}`, { code: 'invalid_input' });
    }
    context[WORKFLOW_KEYS.maxIterations] = raw.maxIterations;
  }
  const made: GraphMachineInput = { request: { input: raw.input === undefined ? null : raw.input }, runId, state: StateModel.untyped.initial(context) };
  if (raw.trace !== undefined) made.trace = raw.trace;
  return made;
}

/**
 * Step names in execution order (the structural nodes and the finish node left out). A step that
 * waited for its sub-workflow and ran on after the reply (its `:waits` node, then the step again)
 * is one execution: it is listed once, however many legs it took.
 */
export function stepPath(compiled: CompiledWorkflow, ids: readonly string[]): string[] {
  const labels = new Map(compiled.graph.nodes.filter((n) => n.type === 'step' && n.id !== compiled.graph.finishNode).map((n) => [n.id, n.label]));
  const out: string[] = [];
  let resumed: string | null = null;
  for (const id of ids) {
    const rt = compiled.runtime.get(id);
    if (rt?.type === 'sub-wait') {
      resumed = rt.step;
      continue;
    }
    const continues = id === resumed;
    resumed = null;
    const label = labels.get(id);
    if (label !== undefined && !continues) out.push(label);
  }
  return out;
}

/** The clock of the gate a person's wait belongs to (null when it has no deadline). */
function personClock(compiled: CompiledWorkflow, gate: string): (() => number) | null {
  const rt = compiled.runtime.get(gate);
  return rt?.type === 'gate' && rt.gate.waitsForPerson !== undefined && rt.gate.waitsForPerson.timeoutMs !== null ? rt.gate.waitsForPerson.now : null;
}

/** The nodes that can end a run at once. */
const EARLY_ENDERS: ReadonlySet<NodeRuntime['type']> = new Set(['step', 'loop-entry', 'loop-check', 'fork', 'fan-out']);

function machineIo(compiled: CompiledWorkflow): MachineIo {
  return {
    graph: compiled.graph,
    path: (ids) => stepPath(compiled, ids),
    input: (raw) => toMachineInput(raw as WorkflowMachineInput, compiled.graph.name),
    finalStatus: (context, status) => {
      const end = earlyEnd(context);
      if (status !== 'completed' || end === null) return status;
      return end.end;
    },
    finalError: (context, status) => {
      const end = earlyEnd(context);
      return status === 'failed' && end?.end === 'failed' ? { name: 'WorkflowTermination', code: 'workflow_aborted', message: end.message || 'the workflow was terminated by a step' } : null;
    },
    output: (base, context) => {
      const out: WorkflowMachineOutput = {
        ...base,
        path: stepPath(compiled, base.path),
        // What run() answers: the last step's handoff (null for a run that failed before any step handed one on).
        output: base.result?.handoff ?? null,
        context: contextFromObject(context.state).toJSON(),
      };
      return out as unknown as GraphMachineOutput;
    },
  };
}

/**
 * The engine graph of a compiled workflow, built from its plain-data graph: a node per graph node
 * (a fork with its branches and join is one node that compiles itself into a parallel state; a
 * person's wait is a human node), each labelled edge a route of the node's one conditional group,
 * the unlabelled edge its transition, and every node able to end the run at once (abort, terminate,
 * spent fuse). The machine is that graph's XState machine, with the workflow's input and output.
 */
export function workflowMachine(compiled: CompiledWorkflow): GraphMachine {
  const { graph, runtime } = compiled;
  const absorbed = new Set<string>();
  const nodeDefs = new Map<string, GraphNode>();
  const joinOf = new Map<string, string>();
  /** Each fan-out's wait node (by fan-out id), and back. */
  const waitOf = new Map<string, string>();
  for (const node of graph.nodes) {
    const rt = runtime.get(node.id);
    if (rt?.type === 'fork') {
      rt.branches.forEach((b) => absorbed.add(b));
      Object.values(rt.recoveries).forEach((list) => list.forEach((r) => absorbed.add(r.nodeId)));
      absorbed.add(rt.join);
      joinOf.set(node.id, rt.join);
    } else if (rt?.type === 'fan-out') {
      absorbed.add(rt.template);
      rt.recoveries.forEach((r) => absorbed.add(r.nodeId));
      absorbed.add(rt.join);
      joinOf.set(node.id, rt.join);
    }
  }
  for (const node of graph.nodes) {
    if (absorbed.has(node.id)) continue;
    const rt = runtime.get(node.id)!;
    if (rt.type === 'fork') {
      nodeDefs.set(node.id, forkNode(rt.mode, rt.branches.map((id) => {
        const branch = runtime.get(id);
        if (branch?.type !== 'step') throw new WorkflowExecutionError(`workflow "${graph.name}": fork branch "${id}" is not a step`, { code: 'internal' });
        return { id, step: branch.step, recoveries: rt.recoveries[id] ?? [] };
      })));
    } else if (rt.type === 'sub-wait') {
      const held = heldChildKey(rt.step);
      nodeDefs.set(node.id, humanNode({
        reason: (ctx) => `sub-workflow "${rt.workflow}" waits: ${(ctx.get(held) as HeldChild | undefined)?.reason ?? 'for a person'}`,
        replyKey: childReplyKey(rt.step),
        reply: PersonReply,
        replyTo: 'state',
      }));
    } else if (rt.type === 'fan-out') {
      nodeDefs.set(node.id, workflowNode(node.id, rt));
      // Its wait, for items whose sub-workflow waits for a person: a reply continues the first of them.
      const fan = rt;
      nodeDefs.set(rt.waits, humanNode({
        reason: (ctx) => {
          const held = ctx.get(forkKey(node.id)) as FanOutHeld | undefined;
          return held === undefined || firstWaitingItem(held) === null ? `an item of ${node.id} waits for a person` : fanOutWaitReason(fan, node.id, held);
        },
        replyKey: fanOutReplyKey(node.id),
        reply: PersonReply,
        replyTo: 'state',
      }));
      waitOf.set(node.id, rt.waits);
    } else if (rt.type === 'person') {
      nodeDefs.set(node.id, humanNode({ reason: `gate "${rt.gate}" waits for a person's decision: reply PASS or FAIL ("FAIL: why")`, replyKey: PERSON_REPLY_KEY, reply: PersonReply, replyTo: 'state' }));
    } else if (node.id === graph.finishNode) {
      nodeDefs.set(node.id, (_ctx, request) => finalResult(request.input));
    } else {
      nodeDefs.set(node.id, workflowNode(node.id, rt));
    }
  }
  const def: GraphDefinition = {
    name: graph.name,
    maxSteps: Number.MAX_SAFE_INTEGER,
    start: graph.startNode,
    nodes: nodeDefs,
    groups: new Map(),
    transitions: new Map(),
    state: StateModel.untyped,
    strictRoutes: true,
    budgetNode: graph.budgetNode ?? null,
  };
  for (const id of nodeDefs.keys()) {
    const from = joinOf.get(id) ?? id;
    const out = graph.edges.filter((e) => e.from === from);
    const rt = runtime.get(id)!;
    if (rt.type === 'fan-wait') {
      // A fan-out's wait goes back to the fan-out, whatever the reply (the item takes it there).
      def.groups.set(id, [{ router: noRoute, routeMap: {} }]);
      def.transitions.set(id, [{ to: rt.fanOut, condition: null }]);
      continue;
    }
    // A step's way on: its unconditional edge, or the back-edge that closes a loop or a gate's retry.
    // A person's FAIL goes on like an unconditional edge (their router answers nothing for it).
    const isDefault = (e: (typeof out)[number]) =>
      e.condition === 'unconditional' || (e.condition === 'back-edge' && (rt.type === 'step' || rt.type === 'sub-wait')) || (rt.type === 'person' && e.label === 'FAIL');
    // Only steps and forks (abort, terminate) and loop nodes (the fuse) can end a run early.
    const routeMap: Record<string, string> = EARLY_ENDERS.has(rt.type) ? { [END_ROUTE]: END } : {};
    for (const e of out) if (!isDefault(e)) routeMap[e.label ?? e.condition] = e.to;
    const waits = waitOf.get(id);
    if (waits !== undefined) routeMap['WAIT'] = waits;
    def.groups.set(id, [{ router: rt.type === 'person' ? personRouter(rt, personClock(compiled, rt.gate)) : rt.type === 'sub-wait' ? noRoute : routeOf, routeMap }]);
    const next = out.find(isDefault);
    def.transitions.set(id, [{ to: id === graph.finishNode ? END : (next?.to ?? END), condition: null }]);
  }
  const spec = { ...buildGraphSpec(def), io: machineIo(compiled) };
  const machine = compileMachine(spec);
  registerCompiled(machine, compiled);
  return machine;
}
