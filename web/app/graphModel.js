// What the workbench draws of a machine definition: nodes, labelled edges, and the legend entries
// that stand for hops every node has (so they are not drawn as long edges from every node).
import { edgeKey } from './runView.js';

export const END = '__end__';
const ROUTE_KINDS = new Set(['conditional', 'transition', 'end']);
const FAILURE_KINDS = new Set(['fuse', 'route-failed', 'node-failed']);
/** The route by which any step of a typed workflow ends the run at once (abort, terminate, a spent loop fuse). */
export const EARLY_END = 'workflow:end';

/**
 * The legend entries, in the order they are listed. `from` names the nodes each stands for; the
 * Mermaid export folds the same hops into notes (machineToMermaid).
 */
const LEGEND_TEXT = {
  [EARLY_END]: `any step → END on ${EARLY_END} (abort, terminate, spent loop fuse)`,
  'no-route': 'no route matched → END',
  failure: 'any node → failed when its step throws or its route fails, → max-steps when the fuse is spent',
};

/**
 * The nodes and edges to draw, and the legend.
 *
 * - Every node but the final states; a coordinator (or a typed workflow's fork) keeps its parts and
 *   is `expanded` only when its id is in `expanded` (collapsed by default).
 * - One edge per (from, to) with the route labels of its hops (`def.hops[].label`), unreachable
 *   hops left out.
 * - Folded into the legend instead of drawn: a typed workflow's early-end route, the end when no
 *   route matches on a node that has other routes (drawn when it is the node's only way on), and the
 *   fuse and failure hops.
 *
 * @param {{ states: any[], hops: any[] }} def - the machine definition (GET /api/graphs/:name/definition)
 * @param {Set<string>} [expanded] - coordinators drawn open, with their parts inside
 */
export function drawable(def, expanded = new Set()) {
  const nodes = def.states
    .filter((s) => s.kind !== 'final')
    .map((s) => ({ id: s.nodeId, kind: s.kind, parts: s.parts ?? [], fork: s.fork === true, expanded: s.kind === 'coordinator' && expanded.has(s.nodeId) }));
  const edges = new Map();
  const legend = new Map(Object.keys(LEGEND_TEXT).map((id) => [id, []]));
  const note = (id, from) => legend.get(id).includes(from) || legend.get(id).push(from);
  for (const n of nodes) {
    const out = def.hops.filter((h) => h.from === n.id);
    if (out.some((h) => FAILURE_KINDS.has(h.kind))) note('failure', n.id);
    const routes = [];
    for (let hop of out) {
      if (!ROUTE_KINDS.has(hop.kind) || hop.reachable === false) continue;
      if (hop.kind === 'conditional' && hop.keys?.includes(EARLY_END)) {
        note(EARLY_END, n.id);
        const keys = hop.keys.filter((k) => k !== EARLY_END);
        if (keys.length === 0) continue;
        hop = { ...hop, keys, label: keys.join(', ') };
      }
      routes.push(hop);
    }
    // The end when nothing matched is one legend entry unless it is the node's only way on.
    const onlyEnd = routes.every((h) => h.kind === 'end');
    for (const hop of routes) {
      if (hop.kind === 'end' && !onlyEnd) {
        note('no-route', n.id);
        continue;
      }
      const key = edgeKey(hop.from, hop.to);
      const edge = edges.get(key) ?? { key, from: hop.from, to: hop.to, labels: [], hops: [] };
      if (hop.label && !edge.labels.includes(hop.label)) edge.labels.push(hop.label);
      edge.hops.push(hop);
      edges.set(key, edge);
    }
  }
  const entries = [...legend].filter(([, from]) => from.length > 0).map(([id, from]) => ({ id, from, text: LEGEND_TEXT[id] }));
  if ([...edges.values()].some((e) => e.to === END)) nodes.push({ id: END, kind: 'end', parts: [], fork: false, expanded: false });
  return { nodes, edges: [...edges.values()], legend: entries };
}

/** What a hop's tooltip says: its kind, index, priority and keys. */
export function hopTitle(hop) {
  return `${hop.kind}${hop.index === undefined ? '' : ` #${hop.index}`} (priority ${hop.priority})${hop.keys ? ` keys: ${hop.keys.join(', ')}` : ''}${hop.label ? ` — ${hop.label}` : ''}`;
}

/**
 * Whether a run took the hops a legend entry stands for: an end from one of its nodes that is not
 * drawn as an edge, or (for failures) a failed node or a spent fuse.
 */
export function legendTaken(entry, view, drawnEdges) {
  if (entry.id === 'failure') return view.failedNodes.size > 0 || view.status === 'max-steps';
  return entry.from.some((from) => !drawnEdges.has(edgeKey(from, END)) && (view.traversed.get(edgeKey(from, END)) ?? 0) > 0);
}
