import { createHash } from 'node:crypto';
import type { GraphSpec } from './GraphSpec.js';
import { isHumanNode } from './humanNode.js';

/**
 * A structural hash of a graph: its name, node ids and kinds, start node, route maps and transition
 * targets (not the code inside nodes, nor `maxSteps`). A stored run is only resumed by a graph with
 * the same hash, so a changed shape fails clearly instead of restoring into the wrong states.
 */
export function graphHash(spec: GraphSpec): string {
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
