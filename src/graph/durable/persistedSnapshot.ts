import type { Actor, AnyActorRef } from 'xstate';
import { isCompilableNode } from '../CompilableNode.js';
import { directMachine, specOf, type GraphMachine } from '../compileMachine.js';
import type { GraphMachineContext } from '../GraphMachineContext.js';
import type { GraphSpec } from '../GraphSpec.js';
import { isHumanNode } from '../humanNode.js';

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
 * (`graph.toMachine()`) would persist it, so it is restored (and its node in flight run again) by
 * that machine:
 * - it holds the machine's context itself instead of walking it for actor references, as
 *   `getPersistedSnapshot()` does at O(context) per step (the path log grows with the run): a graph
 *   machine's context is plain JSON and never changed in place, so the same object is what XState
 *   would give back;
 * - for a machine that runs its nodes directly (a stored run's first leg), the node in flight gets
 *   the child entry its invoked actor would have had (its input: run id, request and step).
 * Machines with history states take XState's own route.
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
  const children: Record<string, unknown> = {};
  if (snapshot.historyValue !== undefined && Object.keys(snapshot.historyValue).length > 0) {
    const { output: _output, ...persisted } = actor.getPersistedSnapshot() as Record<string, unknown>;
    Object.assign(children, persisted.children);
    persisted.children = children;
    addDirectNode(actor, snapshot.context, children);
    return persisted;
  }
  for (const id of Object.keys(snapshot.children)) {
    const child = snapshot.children[id]!;
    children[id] = { snapshot: child.getPersistedSnapshot(), src: child.src, systemId: child.systemId, syncSnapshot: child._syncSnapshot };
  }
  addDirectNode(actor, snapshot.context, children);
  return { status: snapshot.status, error: snapshot.error, value: snapshot.value, historyValue: {}, context: snapshot.context, children };
}

/** The invoked node actor's entry for the node a direct machine runs (its input is computed as the invoke's). */
function addDirectNode(actor: Actor<GraphMachine>, context: GraphMachineContext, children: Record<string, unknown>): void {
  const nodeId = context.inFlight;
  if (nodeId === null || nodeId in children || actor.getSnapshot().status !== 'active') return;
  const spec = specOf(actor.logic);
  if (directMachine(spec) !== actor.logic) return;
  const node = directNodesOf(spec).get(nodeId);
  if (node === undefined) return;
  children[nodeId] = {
    snapshot: { status: 'active', input: { runId: context.runId, request: context.request, step: context.steps } },
    src: node.key,
    syncSnapshot: false,
  };
}
