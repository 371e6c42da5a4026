import { z } from 'zod';
import { isHumanNode } from '../graph/humanNode.js';
import { specOf, type GraphMachine } from '../graph/compileMachine.js';
import { isCompilableNode, type NodePart } from '../graph/CompilableNode.js';
import { END } from '../graph/END.js';
import { transitionNames } from '../trace/transitionNames.js';
import { isGateNode } from '../workflow/isGateNode.js';

/** A state of a compiled graph machine, as the workbench draws it. */
export interface MachineStateInfo {
  /** The XState state key (the escaped node id, or the final state's name). */
  key: string;
  /** The graph node id; null for final states. */
  nodeId: string | null;
  /**
   * `node` invokes an actor, `human` waits for a reply (sub-states `waiting` and `routing`),
   * `coordinator` runs its specialist graphs in parallel and joins them, `final` ends the run.
   */
  kind: 'node' | 'human' | 'coordinator' | 'final';
  /** The invoked actor's id and source (nodes only). */
  actor?: string;
  /** Sub-state keys (human nodes and coordinators). */
  states?: string[];
  /** A coordinator's specialists (task kind and graph name), or a fork's branches (node id and step name): they run in parallel inside it. */
  parts?: NodePart[];
  /** True for a typed workflow's fork (drawn as a coordinator whose parts are its branches). */
  fork?: boolean;
  /**
   * A human node's reply schema as JSON Schema (draft 2020-12, the input side of its zod schema),
   * from which the page builds a reply form; absent for a node that takes a text reply.
   */
  replySchema?: Record<string, unknown>;
}

/** Why a hop is taken: a routing outcome, the fuse, a routing failure, a node failure. */
export type MachineHopKind = 'conditional' | 'transition' | 'end' | 'fuse' | 'route-failed' | 'node-failed';

/** One guarded transition out of a node, in the priority order the machine tries them. */
export interface MachineHop {
  /** The node id it leaves. */
  from: string;
  /** The node id it enters, `__end__` for the normal end, or the final state's key (`maxSteps`, `failed`). */
  to: string;
  /** The target state key. */
  target: string;
  kind: MachineHopKind;
  /** The XState guard with its params (`routedTo` carries `{ entry, kind, index, to, keys? }`); null when unguarded. */
  guard: { type: string; params?: Record<string, unknown> } | null;
  /** `done` (the node actor, or a coordinator's join, finished), `reply` (a human node's routing step) or `error` (the actor threw). */
  on: 'done' | 'reply' | 'error';
  /** 0-based position among the node's hops. */
  priority: number;
  /** Conditional group or transition index. */
  index?: number;
  /** Route-map keys that lead to `to`. */
  keys?: string[];
  /** For a transition: whether it has a condition (false: always taken when reached). */
  conditional?: boolean;
  /**
   * What a drawing writes on the hop: a conditional group's route keys (`rag`), a typed workflow
   * edge's label (`FAIL`), `if <condition>` or `else` for a transition; absent for a plain edge.
   */
  label?: string;
  /**
   * False for a hop that can never be taken: the end fallback of a node that has an unconditional
   * transition, and the fallback transition of a typed workflow's gate (it always answers one of
   * its routes, a person's gate always `WAIT`).
   */
  reachable: boolean;
}

/** A graph machine's shape for drawing: states, hops with their guards, human nodes. */
export interface MachineDefinition {
  id: string;
  initial: string | null;
  states: MachineStateInfo[];
  hops: MachineHop[];
  /** Ids of the nodes that wait for a human reply. */
  humanNodes: string[];
  /** The id `edge.traversed` uses for the normal end. */
  end: string;
}

type Action = { type?: string; params?: Record<string, unknown> };
type Transition = { guard?: string | { type: string; params?: Record<string, unknown> }; target?: string; actions?: Action[] };
type StateConfig = {
  type?: string;
  entry?: Action[];
  invoke?: { id?: string; src?: string; onDone?: Transition[]; onError?: Transition | Transition[] };
  initial?: string;
  states?: Record<string, StateConfig>;
};

const targetKey = (target: string | undefined): string => (target ?? '').split('.').pop() ?? '';

/** A hop a spent budget takes (every node has one; see `compileMachine`). */
const isBudgetHop = (t: Transition): boolean => t.guard === 'budgetSpent' || t.guard === 'budgetRefused';

/** The unguarded failure hop of a node's `onError` (a budget's refusal is tried before it). */
const lastOf = (onError: Transition | Transition[] | undefined): Transition | undefined => (Array.isArray(onError) ? onError[onError.length - 1] : onError);

function hopKind(t: Transition): { kind: MachineHopKind; to?: string; index?: number; keys?: string[] } {
  const guard = t.guard;
  if (guard === 'fuseSpent') return { kind: 'fuse' };
  if (guard === 'routeFailed') return { kind: 'route-failed' };
  if (typeof guard === 'object' && guard.type === 'routedTo' && guard.params !== undefined) {
    const p = guard.params as { kind: 'conditional' | 'transition'; index: number; to: string; keys?: string[] };
    return { kind: p.kind, to: p.to, index: p.index, ...(p.keys ? { keys: p.keys } : {}) };
  }
  return { kind: 'end', to: END };
}

/** A human node's reply schema as JSON Schema; parts zod cannot express (a refinement, a transform) are left open. */
function replyJsonSchema(node: unknown): Record<string, unknown> | undefined {
  if (!isHumanNode(node) || node.replySchema === undefined) return undefined;
  return z.toJSONSchema(node.replySchema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
}

/**
 * Reads a compiled graph machine's config into what a drawing needs: one state per node (human
 * nodes marked), the final states, and every hop with its guard and params in priority order.
 *
 * @example
 * const def = machineDefinition(graph.toMachine());
 * def.hops.filter((h) => h.from === 'classify'); // its routes, in the order they are tried
 */
export function machineDefinition(machine: GraphMachine): MachineDefinition {
  const config = machine.config as unknown as { id: string; initial?: string; states: Record<string, StateConfig> };
  const states: MachineStateInfo[] = [];
  const hops: MachineHop[] = [];
  const humanNodes: string[] = [];
  const idOf = new Map<string, string>();
  for (const [key, state] of Object.entries(config.states)) {
    const entry = state.entry ?? state.states?.waiting?.entry;
    const nodeId = entry?.find((a) => a.type === 'enterNode')?.params?.nodeId;
    if (typeof nodeId === 'string') idOf.set(key, nodeId);
  }
  const spec = specOf(machine);
  const unconditional = (key: string) => spec.byKey.get(key)?.transitions.some((t) => t.condition === null) ?? false;
  const conditionOf = (key: string, index: number | undefined) => spec.byKey.get(key)?.transitions[index ?? -1]?.condition != null;
  const named = transitionNames(machine);
  const labelOf = (from: string, key: string, found: ReturnType<typeof hopKind>): string | null => {
    if (found.kind === 'conditional') return (found.keys ?? [found.to ?? '']).map((k) => (k === END ? 'END' : k)).join(', ');
    if (found.kind === 'transition') return named({ from, to: found.to ?? '', fromKey: key, ...(found.index === undefined ? {} : { index: found.index }) });
    return null;
  };
  const toOf = (t: Transition, found: { to?: string }) => found.to ?? idOf.get(targetKey(t.target)) ?? targetKey(t.target);
  const addHops = (from: string, key: string, list: Transition[], on: MachineHop['on']) => {
    // Every node has a hop to the budget's end (or onBudgetExceeded node), tried first; drawings leave it out.
    list.filter((t) => !isBudgetHop(t)).forEach((t, priority) => {
      const found = hopKind(t);
      const guard = t.guard === undefined ? null : typeof t.guard === 'string' ? { type: t.guard } : { type: t.guard.type, ...(t.guard.params ? { params: t.guard.params } : {}) };
      const extra = found.kind === 'transition' ? { conditional: conditionOf(key, found.index) } : {};
      const reachable = !(found.kind === 'end' && t.guard === undefined && unconditional(key)) && !(found.kind === 'transition' && isGateNode(machine, from));
      const label = labelOf(from, key, found);
      hops.push({ from, to: toOf(t, found), target: targetKey(t.target), guard, on, priority, ...found, ...extra, ...(label === null ? {} : { label }), reachable });
    });
  };
  for (const [key, state] of Object.entries(config.states)) {
    const nodeId = idOf.get(key) ?? null;
    if (state.type === 'final' || nodeId === null) {
      states.push({ key, nodeId: null, kind: 'final' });
    } else if (state.invoke !== undefined) {
      states.push({ key, nodeId, kind: 'node', actor: state.invoke.id ?? nodeId });
      addHops(nodeId, key, state.invoke.onDone ?? [], 'done');
      const failure = lastOf(state.invoke.onError);
      if (failure !== undefined) {
        const t = failure;
        const priority = (state.invoke.onDone ?? []).filter((h) => !isBudgetHop(h)).length;
        hops.push({ from: nodeId, to: targetKey(t.target), target: targetKey(t.target), kind: 'node-failed', guard: null, on: 'error', priority, reachable: true });
      }
    } else if (isCompilableNode(spec.byKey.get(key)?.node)) {
      const node = spec.byKey.get(key)!.node as { parts?: readonly NodePart[]; fork?: boolean };
      states.push({ key, nodeId, kind: 'coordinator', states: Object.keys(state.states ?? {}), parts: (node.parts ?? []).map((p) => ({ ...p })), ...(node.fork === true ? { fork: true } : {}) });
      addHops(nodeId, key, ((state.states?.routing as { always?: Transition[] } | undefined)?.always ?? []) as Transition[], 'done');
    } else {
      humanNodes.push(nodeId);
      const replySchema = replyJsonSchema(spec.byKey.get(key)?.node);
      states.push({ key, nodeId, kind: 'human', states: Object.keys(state.states ?? {}), ...(replySchema === undefined ? {} : { replySchema }) });
      addHops(nodeId, key, ((state.states?.routing as { always?: Transition[] } | undefined)?.always ?? []) as Transition[], 'reply');
    }
  }
  return { id: config.id, initial: config.initial ?? null, states, hops, humanNodes, end: END };
}
