// Draws a machine definition as a graph (dagre computes the layout) and lights it up from a run view.
import dagre from '/vendor/dagre.js';
import { edgeKey } from './runView.js';

const SVG = 'http://www.w3.org/2000/svg';
const END = '__end__';
const ROUTE_KINDS = new Set(['conditional', 'transition', 'end']);
/** The route by which any step of a typed workflow ends the run at once (abort, terminate, a spent loop fuse). */
const EARLY_END = 'workflow:end';

function el(name, attrs = {}, text) {
  const node = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  if (text !== undefined) node.textContent = text;
  return node;
}

/**
 * The nodes and edges to draw: every node (a coordinator with its specialists), END, and one edge per
 * (from, to) with its route labels. A typed workflow's early-end route, which every step has, is
 * not drawn from each step: those steps are listed in `folded` (shown as one legend entry).
 */
export function drawable(def) {
  const nodes = def.states.filter((s) => s.kind !== 'final').map((s) => ({ id: s.nodeId, kind: s.kind, parts: s.parts ?? [], fork: s.fork === true }));
  const edges = new Map();
  const folded = [];
  for (let hop of def.hops) {
    if (!ROUTE_KINDS.has(hop.kind) || hop.reachable === false) continue;
    if (hop.kind === 'conditional' && hop.keys?.includes(EARLY_END)) {
      folded.push(hop.from);
      const keys = hop.keys.filter((k) => k !== EARLY_END);
      if (keys.length === 0) continue;
      hop = { ...hop, keys };
    }
    const key = edgeKey(hop.from, hop.to);
    const edge = edges.get(key) ?? { from: hop.from, to: hop.to, labels: [], hops: [] };
    // Route-map keys say why a conditional hop is taken; a router without a map is shown by its group.
    const label = hop.keys?.join(', ') ?? (hop.kind === 'conditional' ? `group ${hop.index}` : hop.conditional ? `if #${hop.index}` : '');
    if (label) edge.labels.push(label);
    edge.hops.push(hop);
    edges.set(key, edge);
  }
  if (folded.length > 0 || [...edges.values()].some((e) => e.to === END)) nodes.push({ id: END, kind: 'end', parts: [] });
  return { nodes, edges: [...edges.values()], folded };
}

/** The size of one specialist box inside a coordinator, and the space around it. */
const PART = { height: 24, gap: 8, pad: 10, top: 30 };

const partWidth = (name) => Math.max(48, name.length * 7 + 18);

/** Where a coordinator's specialists sit inside it: side by side, in rows no wider than the node. */
function partBoxes(n, width) {
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

/** A node's box: a coordinator is wide and tall enough for its specialists (at most three a row). */
function nodeSize(n) {
  const plain = Math.max(96, n.id.length * 8 + 36);
  if (n.kind !== 'coordinator' || n.parts.length === 0) return { width: plain, height: 38 };
  const perRow = Math.min(3, n.parts.length);
  const widest = Math.max(...n.parts.map((p) => partWidth(p.name)));
  const width = Math.max(plain, PART.pad * 2 + perRow * widest + (perRow - 1) * PART.gap);
  const rows = partBoxes(n, width).reduce((most, b) => Math.max(most, b.y), PART.top);
  return { width, height: rows + PART.height + PART.pad };
}

/** The node a reader follows: the one running, else waiting, else failed, else the one the last hop entered. */
function litNode(view) {
  const to = view.lastEdge?.split('→')[1];
  return [...view.activeNodes][0] ?? view.waiting?.nodeId ?? [...view.failedNodes][0] ?? to ?? null;
}

/** Scrolls the graph's own panel (never the window) so that `target` is inside it. */
function keepInView(panel, target) {
  if (!target) return;
  const box = target.getBoundingClientRect();
  const frame = panel.getBoundingClientRect();
  if (box.top < frame.top || box.bottom > frame.bottom) panel.scrollTop += box.top - frame.top - (frame.height - box.height) / 2;
  if (box.left < frame.left || box.right > frame.right) panel.scrollLeft += box.left - frame.left - (frame.width - box.width) / 2;
}

/**
 * Renders `def` into `container`; `onSelect(nodeId)` is called when a node is clicked. Returns
 * `update(view, selected)` to light up active nodes, visit counts and traversed edges.
 */
export function renderGraph(container, def, onSelect) {
  const { nodes, edges, folded } = drawable(def);
  const g = new dagre.graphlib.Graph({ multigraph: false });
  g.setGraph({ rankdir: 'TB', nodesep: 36, ranksep: 46, marginx: 16, marginy: 16 });
  g.setDefaultEdgeLabel(() => ({}));
  for (const n of nodes) g.setNode(n.id, nodeSize(n));
  for (const e of edges) {
    const label = e.labels.join(' | ');
    g.setEdge(e.from, e.to, label ? { label, width: label.length * 6.5, height: 14 } : {});
  }
  dagre.layout(g);
  const { width, height: drawn } = g.graph();
  // The folded early-end routes get one line of legend under the drawing.
  const height = folded.length > 0 ? drawn + 22 : drawn;
  const svg = el('svg', { viewBox: `0 0 ${Math.ceil(width)} ${Math.ceil(height)}`, width: Math.ceil(width), height: Math.ceil(height), role: 'img' });
  const defs = el('defs');
  const marker = el('marker', { id: 'arrow', viewBox: '0 0 10 10', refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: 'auto-start-reverse' });
  marker.append(el('path', { d: 'M0,0 L10,5 L0,10 z', class: 'arrowhead' }));
  defs.append(marker);
  svg.append(defs);

  const edgeEls = new Map();
  const edgeSpots = new Map();
  for (const e of edges) {
    const laid = g.edge(e.from, e.to);
    const points = laid.points ?? [];
    const d = points.map((p, i) => `${i === 0 ? 'M' : 'L'}${p.x.toFixed(1)},${p.y.toFixed(1)}`).join(' ');
    const group = el('g', { class: 'edge', 'data-from': e.from, 'data-to': e.to });
    group.append(el('path', { d, 'marker-end': 'url(#arrow)' }));
    if (laid.label) group.append(el('text', { x: laid.x, y: laid.y, class: 'edge-label', 'text-anchor': 'middle' }, laid.label));
    const title = el('title', {}, e.hops.map((h) => `${h.kind}${h.index === undefined ? '' : ` #${h.index}`} (priority ${h.priority})${h.keys ? ` keys: ${h.keys.join(', ')}` : ''}`).join('\n'));
    group.append(title);
    svg.append(group);
    edgeEls.set(edgeKey(e.from, e.to), group);
    // Where an edge's probability goes: under its label, or at the middle of its path.
    const mid = points[Math.floor(points.length / 2)] ?? { x: 0, y: 0 };
    edgeSpots.set(group, laid.label ? { x: laid.x, y: laid.y + 12 } : { x: mid.x + 4, y: mid.y });
  }

  let legend = null;
  if (folded.length > 0) {
    legend = el('g', { class: 'legend early-end', 'data-legend': EARLY_END, 'data-steps': folded.join(' ') });
    legend.append(el('text', { x: 16, y: drawn + 12, class: 'legend-text' }, `any step → END on ${EARLY_END} (abort, terminate, spent loop fuse)`));
    legend.append(el('title', {}, `${EARLY_END} from: ${folded.join(', ')}`));
    svg.append(legend);
  }

  const nodeEls = new Map();
  for (const n of nodes) {
    const box = g.node(n.id);
    const group = el('g', { class: `node ${n.kind}`, 'data-node-id': n.id, 'data-visits': 0, tabindex: 0, transform: `translate(${box.x - box.width / 2},${box.y - box.height / 2})` });
    group.append(el('rect', { width: box.width, height: box.height, rx: n.kind === 'end' ? 19 : 6 }));
    group.append(el('text', { x: box.width / 2, y: n.kind === 'coordinator' ? 22 : box.height / 2 + 4, 'text-anchor': 'middle', class: 'node-label' }, n.id === END ? 'END' : n.id));
    const badge = el('text', { x: box.width - 4, y: 11, 'text-anchor': 'end', class: 'badge-count' }, '');
    group.append(badge);
    if (n.kind === 'human') group.append(el('text', { x: 6, y: 11, class: 'human-mark' }, 'human'));
    const parts = new Map();
    if (n.kind === 'coordinator') {
      group.append(el('text', { x: 6, y: 11, class: 'coordinator-mark' }, 'parallel'));
      for (const part of partBoxes(n, box.width)) {
        const chip = el('g', { class: 'part', 'data-part': part.name, transform: `translate(${part.x},${part.y})` });
        chip.append(el('rect', { width: part.width, height: PART.height, rx: 4 }));
        chip.append(el('text', { x: part.width / 2, y: PART.height / 2 + 4, 'text-anchor': 'middle' }, part.name));
        const what = n.fork ? `branch ${part.name}${part.graph === part.name ? '' : ` (step ${part.graph})`}` : `specialist ${part.name}${part.graph === part.name ? '' : ` (graph ${part.graph})`}`;
        chip.append(el('title', {}, `${what}: runs in parallel with the others`));
        group.append(chip);
        parts.set(part.name, chip);
      }
    }
    group.addEventListener('click', () => n.id !== END && onSelect(n.id));
    group.addEventListener('keydown', (ev) => ev.key === 'Enter' && n.id !== END && onSelect(n.id));
    svg.append(group);
    nodeEls.set(n.id, { group, badge, parts });
  }
  container.replaceChildren(svg);

  /**
   * Labels each edge with its estimated probability (`probabilities`: edge key → p, from the
   * transitions panel); edges without one lose theirs. Null clears every label.
   */
  function showProbabilities(probabilities) {
    for (const [key, group] of edgeEls) {
      group.querySelector('.edge-prob')?.remove();
      const p = probabilities?.get(key);
      if (p === undefined) {
        group.removeAttribute('data-probability');
        continue;
      }
      group.setAttribute('data-probability', String(p));
      const spot = edgeSpots.get(group);
      group.append(el('text', { x: spot.x, y: spot.y, class: 'edge-prob', 'text-anchor': 'start' }, `p ${p >= 0.01 ? p.toFixed(2) : '<0.01'}`));
    }
  }

  update.showProbabilities = showProbabilities;
  return update;

  function update(view, selected) {
    for (const [id, { group, badge, parts }] of nodeEls) {
      const visits = id === END ? (view.status === 'completed' ? 1 : 0) : (view.visits.get(id) ?? 0);
      group.setAttribute('data-visits', String(visits));
      group.classList.toggle('visited', visits > 0);
      group.classList.toggle('failed', view.failedNodes.has(id));
      group.classList.toggle('active', view.activeNodes.has(id));
      group.classList.toggle('waiting', view.waiting?.nodeId === id);
      group.classList.toggle('selected', selected === id);
      badge.textContent = visits > 1 ? `×${visits}` : '';
      for (const [name, chip] of parts) {
        // A specialist's events run under the trace path `root/<kind>[n]`, a fork branch's under `root/<branch>[n]`.
        const mine = (path) => path.startsWith(`root/${name}[`);
        chip.classList.toggle('visited', [...view.lanes.keys()].some(mine));
        chip.classList.toggle('active', [...view.active].some((key) => mine(key.split('|')[0])));
      }
    }
    const lit = nodeEls.get(litNode(view))?.group;
    for (const { group } of nodeEls.values()) group.classList.toggle('lit', group === lit);
    keepInView(container.closest('.graph-panel') ?? container, lit);
    for (const [key, group] of edgeEls) {
      const times = view.traversed.get(key) ?? 0;
      group.classList.toggle('traversed', times > 0);
      group.classList.toggle('last', view.lastEdge === key);
      group.setAttribute('data-traversed', String(times));
    }
    // A run that ended early by a folded route lights the legend entry instead of an edge.
    if (legend !== null) legend.classList.toggle('traversed', folded.some((from) => !edgeEls.has(edgeKey(from, END)) && (view.traversed.get(edgeKey(from, END)) ?? 0) > 0));
  }
}
