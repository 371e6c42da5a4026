// Where each node, edge and label of a drawable graph goes (dagre ranks and routes them). A pair of
// edges that go both ways between two nodes (a tool loop, a review that sends a draft back) is laid
// out once and drawn as two parallel lines, one each side, instead of dagre's crossing bow-tie.
import dagre from '/vendor/dagre.js';

/** The size of one part (specialist, branch) box inside an open coordinator, and the space around it. */
export const PART = { height: 24, gap: 8, pad: 10, top: 30 };
/** How far apart the two lines of a two-way pair run. */
const PAIR_GAP = 9;
const NODE_HEIGHT = 38;
const LABEL_CHAR = 6.6;

const partWidth = (name) => Math.max(48, name.length * 7 + 18);
const plainWidth = (id) => Math.max(96, id.length * 8 + 36);

/** Where an open coordinator's parts sit inside it: side by side, in rows no wider than the node. */
export function partBoxes(n, width) {
  const boxes = [];
  let x = PART.pad;
  let y = PART.top;
  for (const part of n.parts) {
    const w = partWidth(part.name);
    if (x > PART.pad && x + w > width - PART.pad) {
      x = PART.pad;
      y += PART.height + PART.gap;
    }
    boxes.push({ ...part, x, y, width: w });
    x += w + PART.gap;
  }
  return boxes;
}

/** A node's box: a closed coordinator has a second line; an open one holds its parts (at most three a row). */
export function nodeSize(n) {
  const plain = plainWidth(n.id);
  if (n.kind !== 'coordinator' || n.parts.length === 0) return { width: plain, height: NODE_HEIGHT };
  if (!n.expanded) return { width: Math.max(plain, 132), height: 48 };
  const perRow = Math.min(3, n.parts.length);
  const widest = Math.max(...n.parts.map((p) => partWidth(p.name)));
  const width = Math.max(plain, PART.pad * 2 + perRow * widest + (perRow - 1) * PART.gap);
  const rows = partBoxes(n, width).reduce((most, b) => Math.max(most, b.y), PART.top);
  return { width, height: rows + PART.height + PART.pad };
}

/**
 * `points` moved `d` to the left of the way they run (negative: to the right), each along the normal
 * of the line there, so two copies moved to either side stay apart however the line bends.
 */
function offsetLine(points, d) {
  const unit = (a, b) => {
    const len = Math.hypot(b.x - a.x, b.y - a.y) || 1;
    return { x: (b.x - a.x) / len, y: (b.y - a.y) / len };
  };
  return points.map((p, i) => {
    const before = i > 0 ? unit(points[i - 1], p) : null;
    const after = i < points.length - 1 ? unit(p, points[i + 1]) : null;
    const dir = before && after ? unit({ x: 0, y: 0 }, { x: before.x + after.x, y: before.y + after.y }) : (before ?? after);
    return { x: p.x + dir.y * d, y: p.y - dir.x * d };
  });
}

/**
 * Lays out `model` (from `drawable`) top to bottom (`TB`) or left to right (`LR`).
 *
 * @returns {{ rankdir: string, width: number, height: number, nodes: Map<string, {x: number, y: number, width: number, height: number}>,
 *   edges: Array<{ edge: any, points: Array<{x: number, y: number}>, label: { text: string, x: number, y: number } | null }> }}
 */
export function layoutGraph(model, rankdir) {
  const g = new dagre.graphlib.Graph({ multigraph: false });
  g.setGraph({ rankdir, nodesep: rankdir === 'TB' ? 20 : 22, ranksep: rankdir === 'TB' ? 22 : 54, edgesep: 14, marginx: 12, marginy: 12 });
  g.setDefaultEdgeLabel(() => ({}));
  // dagre keeps nodes in plain objects and fails on ids such as `constructor` or `toString`: it gets
  // ids of its own (`node:0`, …), never the graph's.
  const ids = new Map(model.nodes.map((n, i) => [n.id, `node:${i}`]));
  const idOf = (id) => {
    if (!ids.has(id)) ids.set(id, `node:${ids.size}`);
    return ids.get(id);
  };
  for (const n of model.nodes) g.setNode(idOf(n.id), nodeSize(n));
  const byKey = new Map(model.edges.map((e) => [e.key, e]));
  /** The second edge of a two-way pair → the first (laid out for both). */
  const pairedWith = new Map();
  for (const e of model.edges) {
    const back = byKey.get(`${e.to}→${e.from}`);
    if (back && e.from !== e.to && !pairedWith.has(e.key)) pairedWith.set(back.key, e);
  }
  const textOf = (e) => e.labels.join(' | ');
  for (const e of model.edges) {
    if (pairedWith.has(e.key)) continue;
    const back = model.edges.find((b) => pairedWith.get(b.key) === e);
    // A pair's one dagre edge keeps room for both labels.
    const text = [textOf(e), back ? textOf(back) : ''].filter(Boolean).join('   ');
    g.setEdge(idOf(e.from), idOf(e.to), text ? { label: text, width: text.length * LABEL_CHAR + 8, height: 14, labelpos: 'c' } : {});
  }
  dagre.layout(g);

  const nodes = new Map(model.nodes.map((n) => [n.id, g.node(idOf(n.id))]));
  const edges = [];
  for (const e of model.edges) {
    const first = pairedWith.get(e.key);
    const laid = g.edge(idOf(first ? first.from : e.from), idOf(first ? first.to : e.to));
    let points = (laid.points ?? []).map((p) => ({ x: p.x, y: p.y }));
    const back = first ? null : model.edges.find((b) => pairedWith.get(b.key) === e);
    let label = null;
    if (first || back) {
      // Two-way pair: each edge keeps to its own left of dagre's line (the second runs it backwards), so they never cross.
      if (first) points = points.reverse();
      points = offsetLine(points, PAIR_GAP / 2);
      const at = Math.floor((points.length - 1) / 2);
      const a = points[at];
      const b = points[at + 1] ?? a;
      const mid = { x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 };
      const text = textOf(e);
      if (text) {
        // The label sits further out on the same side as its line.
        const len = Math.hypot(b.x - a.x, b.y - a.y) || 1;
        const n = { x: (b.y - a.y) / len, y: -(b.x - a.x) / len };
        const out = Math.abs(n.x) * ((text.length * LABEL_CHAR) / 2 + 4) + Math.abs(n.y) * 9;
        label = { text, x: mid.x + n.x * out, y: mid.y + n.y * out + 4 };
      }
    } else if (laid.label) {
      label = { text: laid.label, x: laid.x, y: laid.y + 4 };
    }
    edges.push({ edge: e, points, label });
  }
  const { width, height } = g.graph();
  return { rankdir, width, height, nodes, edges };
}
