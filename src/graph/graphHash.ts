import { createHash } from 'node:crypto';
import type { GraphSpec } from './GraphSpec.js';
import { isHumanNode } from './humanNode.js';

/** Hashes made so far, by spec: a spec is built once per graph and never changed afterwards. */
const hashes = new WeakMap<GraphSpec, string>();

/**
 * A structural hash of a graph: its name, node ids and kinds, start node, route maps and transition
 * targets (not the code inside nodes, nor `maxSteps`). A stored run is only resumed by a graph with
 * the same hash, so a changed shape fails clearly instead of restoring into the wrong states. Made
 * once per spec (every stored run of a graph starts with it).
 */
export function graphHash(spec: GraphSpec): string {
  let hash = hashes.get(spec);
  if (hash === undefined) hashes.set(spec, (hash = hashOf(spec)));
  return hash;
}

function hashOf(spec: GraphSpec): string {
  const shape = {
    name: spec.name,
    kind: spec.kind,
    start: spec.start?.key ?? null,
    // Only graphs that name a budget node hash it, so the hash of every other graph stays as it was.
    ...(spec.budgetNode ? { budgetNode: spec.budgetNode.key } : {}),
    nodes: spec.nodes.map((n) => ({
      id: n.id,
      key: n.key,
      human: isHumanNode(n.node),
      groups: n.groups.map((g) => (g.routeMap === null ? null : [...g.routeMap])),
      transitions: n.transitions.map((t) => [t.to, t.condition !== null]),
    })),
  };
  return createHash('sha256').update(JSON.stringify(shape)).digest('hex').slice(0, 16);
}
