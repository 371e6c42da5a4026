import type { Actor, AnyActorRef } from 'xstate';
import { isCompilableNode } from '../CompilableNode.js';
import { specOf, type GraphMachine } from '../compileMachine.js';
import type { GraphMachineContext } from '../GraphMachineContext.js';
import type { GraphSpec } from '../GraphSpec.js';
import { isHumanNode } from '../humanNode.js';
import { runtimeOf } from '../runtimeOf.js';

/** For a graph: the node each id names, among the nodes a direct machine runs without a child actor. */
const directNodes = new WeakMap<GraphSpec, Map<string, { key: string }>>();

function directNodesOf(spec: GraphSpec): Map<string, { key: string }> {
  let nodes = directNodes.get(spec);
  if (nodes === undefined) {
    nodes = new Map(spec.nodes.filter((n) => !isHumanNode(n.node) && !isCompilableNode(n.node)).map((n) => [n.id, { key: n.key }]));
    directNodes.set(spec, nodes);
  }
  return nodes;
}

/**
 * The actor's persisted snapshot without its output, as the graph's invoking machine
 * (`graph.toMachine()`) would persist it, except for the node in flight of a machine that runs its
 * nodes directly (a stored run's first leg): that node has no child actor, and its entry is left
 * out, since it only repeats the context (run id, request, step) — so a step record does not write
 * it again at every step. {@link withDirectNode} puts it back before the snapshot is restored, and
 * the invoking machine runs the node again. It holds the machine's context itself instead of
 * walking it for actor references, as `getPersistedSnapshot()` does at O(context) per step (the
 * path log grows with the run): a graph machine's context is plain JSON and never changed in
 * place, so the same object is what XState would give back. Machines with history states take
 * XState's own route.
 */
export function persistedSnapshot(actor: Actor<GraphMachine>): Record<string, unknown> {
  const snapshot = actor.getSnapshot() as unknown as {
    status: string;
    error: unknown;
    value: unknown;
    historyValue: Record<string, unknown> | undefined;
    context: GraphMachineContext;
    children: Record<string, AnyActorRef & { _syncSnapshot?: unknown; systemId?: string }>;
  };
  if (snapshot.historyValue !== undefined && hasOwnKeys(snapshot.historyValue)) {
    const { output: _output, ...persisted } = actor.getPersistedSnapshot() as Record<string, unknown>;
    return { ...persisted, context: withLiveBudget(actor, persisted['context'] as GraphMachineContext) };
  }
  let children = NONE;
  for (const id in snapshot.children) {
    if (!Object.hasOwn(snapshot.children, id)) continue;
    const child = snapshot.children[id]!;
    if (children === NONE) children = {};
    children[id] = { snapshot: child.getPersistedSnapshot(), src: child.src, systemId: child.systemId, syncSnapshot: child._syncSnapshot };
  }
  return { status: snapshot.status, error: snapshot.error, value: snapshot.value, historyValue: NONE, context: withLiveBudget(actor, snapshot.context), children };
}

/**
 * The empty history and children of a snapshot (frozen: snapshots are never changed in place, and
 * one shared object lets a step's check skip them as unchanged instead of walking two new ones).
 */
const NONE = Object.freeze({}) as Record<string, unknown>;

function hasOwnKeys(value: object): boolean {
  for (const key in value) if (Object.hasOwn(value, key)) return true;
  return false;
}

/**
 * The context with the run's live budget state: steps copy it into the context only when what was
 * spent changes, so the active time there may lag; a stored snapshot of a running run must carry it
 * up to now, or a run resumed from it would be given time it already used.
 */
function withLiveBudget(actor: Actor<GraphMachine>, context: GraphMachineContext): GraphMachineContext {
  // A run that waits or ended wrote its budget state then (time after that is not the run's).
  if (context.budget === null || context.status !== 'running') return context;
  const meter = runtimeOf(actor).meter;
  return meter === null ? context : { ...context, budget: meter.toState() };
}

/**
 * A stored snapshot ready to be restored by the graph's invoking machine: when a node that runs
 * without a child actor in a direct machine was in flight, it gets the child entry its invoked
 * actor would have had (its input: run id, request and step), so restoring runs it again. A
 * snapshot that already holds the entry (written before entries were left out) is returned as is.
 */
export function withDirectNode(machine: GraphMachine, stored: unknown): unknown {
  const snapshot = stored as { status?: unknown; context?: GraphMachineContext; children?: Record<string, unknown> } | null;
  const context = snapshot?.context;
  const nodeId = context?.inFlight;
  if (snapshot === null || context === undefined || typeof nodeId !== 'string' || snapshot.status !== 'active') return stored;
  const children = snapshot.children ?? {};
  if (nodeId in children) return stored;
  const node = directNodesOf(specOf(machine)).get(nodeId);
  if (node === undefined) return stored;
  const entry = { snapshot: { status: 'active', input: { runId: context.runId, request: context.request, step: context.steps } }, src: node.key, syncSnapshot: false };
  return { ...snapshot, children: { ...children, [nodeId]: entry } };
}
