// Draws a machine definition as a graph and lights it up from a run view: zoom (wheel, buttons, pinch,
// keys), pan (drag, arrows) and fit (button, on load, on resize); coordinators open and close; hops every node has are
// one legend under the drawing.
import { partBoxes, PART, layoutGraph } from './graphLayout.js';
import { END, drawable, hopTitle, legendTaken } from './graphModel.js';
import { createViewport } from './graphViewport.js';
import { edgeKey } from './runView.js';

const SVG = 'http://www.w3.org/2000/svg';

function el(name, attrs = {}, text) {
  const node = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  if (text !== undefined) node.textContent = text;
  return node;
}

function html(tag, props = {}, text) {
  const node = Object.assign(document.createElement(tag), props);
  if (text !== undefined) node.textContent = text;
  return node;
}

/** A smooth path through dagre's points: straight ends, rounded bends. */
function pathOf(points) {
  if (points.length < 3) return points.map((p, i) => `${i === 0 ? 'M' : 'L'}${p.x.toFixed(1)},${p.y.toFixed(1)}`).join(' ');
  const mid = (a, b) => ({ x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 });
  let d = `M${points[0].x.toFixed(1)},${points[0].y.toFixed(1)}`;
  const first = mid(points[0], points[1]);
  d += ` L${first.x.toFixed(1)},${first.y.toFixed(1)}`;
  for (let i = 1; i < points.length - 1; i++) {
    const to = i === points.length - 2 ? points[i + 1] : mid(points[i], points[i + 1]);
    d += ` Q${points[i].x.toFixed(1)},${points[i].y.toFixed(1)} ${to.x.toFixed(1)},${to.y.toFixed(1)}`;
  }
  return d;
}

/** The node a reader follows: the one running, else waiting, else failed, else the one the last hop entered. */
function litNode(view) {
  const to = view.lastEdge?.split('→')[1];
  return [...view.activeNodes][0] ?? view.waiting?.nodeId ?? [...view.failedNodes][0] ?? to ?? null;
}

/** The parts of a coordinator that ran, and those running, by the trace paths of `view`. */
function partsSeen(view, name) {
  // A specialist's events run under the trace path `root/<kind>[n]`, a fork branch's under `root/<branch>[n]`.
  const mine = (path) => path.startsWith(`root/${name}[`);
  return { visited: [...view.lanes.keys()].some(mine), active: [...view.active].some((key) => mine(key.split('|')[0])) };
}

/**
 * Renders `def` into `container`; `onSelect(nodeId)` is called when a node is clicked. Returns
 * `update(view, selected)` to light up active nodes, visit counts and traversed edges (and
 * `update.showProbabilities(map)` to label edges with their probabilities).
 */
export function renderGraph(container, def, onSelect) {
  const expanded = new Set();
  const tools = html('div', { className: 'graph-tools' });
  const button = (id, text, title) => tools.appendChild(html('button', { type: 'button', id, className: 'secondary', title, ariaLabel: title }, text));
  const zoomIn = button('zoom-in', '+', 'zoom in');
  const zoomOut = button('zoom-out', '−', 'zoom out');
  const fitButton = button('zoom-fit', 'Fit', 'fit the whole graph');
  const svg = el('svg', { class: 'graph-canvas', role: 'img', 'aria-label': 'machine graph' });
  const defs = el('defs');
  const marker = el('marker', { id: 'arrow', viewBox: '0 0 10 10', refX: 9, refY: 5, markerWidth: 9, markerHeight: 9, markerUnits: 'userSpaceOnUse', orient: 'auto-start-reverse' });
  marker.append(el('path', { d: 'M0,0 L10,5 L0,10 z', class: 'arrowhead' }));
  defs.append(marker);
  const layer = el('g', { class: 'graph-layer' });
  svg.append(defs, layer);
  const legendList = html('ul', { className: 'graph-legend' });
  container.replaceChildren(tools, svg, legendList);

  const viewport = createViewport(svg, layer, () => (svg.dataset.rankdir = laid?.rankdir ?? ''));
  zoomIn.addEventListener('click', () => viewport.zoomBy(1.25));
  zoomOut.addEventListener('click', () => viewport.zoomBy(0.8));
  fitButton.addEventListener('click', () => fit());
  // From the keyboard, with the drawing focused: + and − zoom, 0 fits, the arrows pan.
  svg.setAttribute('tabindex', '0');
  const keys = { '+': () => viewport.zoomBy(1.25), '=': () => viewport.zoomBy(1.25), '-': () => viewport.zoomBy(0.8), '0': () => fit(), ArrowLeft: () => viewport.panBy(60, 0), ArrowRight: () => viewport.panBy(-60, 0), ArrowUp: () => viewport.panBy(0, 60), ArrowDown: () => viewport.panBy(0, -60) };
  svg.addEventListener('keydown', (ev) => {
    const act = keys[ev.key];
    if (!act || ev.ctrlKey || ev.metaKey || ev.altKey) return;
    ev.preventDefault();
    act();
  });

  let model = null;
  let laid = null;
  let nodeEls = new Map();
  let edgeEls = new Map();
  let edgeSpots = new Map();
  let legendEls = [];
  let last = null;
  let probabilities = null;
  let litId = null;

  /** Top to bottom or left to right: whichever shows the whole graph larger in the panel as it is now. */
  function direction() {
    const width = svg.clientWidth;
    const height = svg.clientHeight;
    if (width === 0 || height === 0) return laid?.rankdir ?? 'TB';
    const scaleOf = (l) => viewport.fitTransform({ x: 0, y: 0, width: l.width, height: l.height }, width, height).fitting;
    const tb = layoutGraph(model, 'TB');
    const lr = layoutGraph(model, 'LR');
    return scaleOf(lr) > scaleOf(tb) * 1.05 ? 'LR' : 'TB';
  }

  function draw(rankdir) {
    laid = layoutGraph(model, rankdir);
    svg.dataset.rankdir = rankdir;
    nodeEls = new Map();
    edgeEls = new Map();
    edgeSpots = new Map();
    const edgeGroup = el('g', { class: 'edges' });
    for (const { edge, points, label } of laid.edges) {
      const group = el('g', { class: 'edge', 'data-from': edge.from, 'data-to': edge.to });
      group.append(el('path', { d: pathOf(points), 'marker-end': 'url(#arrow)' }));
      if (label) group.append(el('text', { x: label.x.toFixed(1), y: label.y.toFixed(1), class: 'edge-label', 'text-anchor': 'middle' }, label.text));
      group.append(el('title', {}, edge.hops.map(hopTitle).join('\n')));
      edgeGroup.append(group);
      edgeEls.set(edge.key, group);
      // Where an edge's probability goes: under its label, or at the middle of its path.
      const mid = points[Math.floor(points.length / 2)] ?? { x: 0, y: 0 };
      edgeSpots.set(group, label ? { x: label.x - 10, y: label.y + 12 } : { x: mid.x + 4, y: mid.y });
    }
    const nodeGroup = el('g', { class: 'nodes' });
    for (const n of model.nodes) nodeGroup.append(drawNode(n, laid.nodes.get(n.id)));
    layer.replaceChildren(edgeGroup, nodeGroup);
    legendEls = model.legend.map((entry) => {
      const item = html('li', { className: 'legend', title: `${entry.id}: ${entry.from.join(', ')}` });
      item.dataset.legend = entry.id;
      item.dataset.steps = entry.from.join(' ');
      item.append(html('span', { className: 'legend-mark' }), html('span', { className: 'legend-text' }, entry.text));
      return { entry, item };
    });
    legendList.replaceChildren(...legendEls.map((l) => l.item));
    if (last) update(last.view, last.selected);
    showProbabilities(probabilities);
  }

  function drawNode(n, box) {
    const group = el('g', { class: `node ${n.kind}${n.expanded ? ' expanded' : ''}`, 'data-node-id': n.id, 'data-visits': 0, tabindex: 0, transform: `translate(${box.x - box.width / 2},${box.y - box.height / 2})` });
    group.append(el('rect', { width: box.width, height: box.height, rx: n.kind === 'end' ? 19 : 6 }));
    const open = n.kind === 'coordinator' && n.expanded;
    const closed = n.kind === 'coordinator' && !n.expanded && n.parts.length > 0;
    group.append(el('text', { x: box.width / 2, y: open ? 22 : closed ? 19 : box.height / 2 + 4, 'text-anchor': 'middle', class: 'node-label' }, n.id === END ? 'END' : n.id));
    const badge = el('text', { x: box.width - 4, y: 11, 'text-anchor': 'end', class: 'badge-count' }, '');
    group.append(badge);
    if (n.kind === 'human') group.append(el('text', { x: 6, y: 11, class: 'human-mark' }, 'human'));
    const parts = new Map();
    let summary = null;
    if (n.kind === 'coordinator') {
      group.append(el('text', { x: 6, y: 11, class: 'coordinator-mark' }, 'parallel'));
      const noun = n.fork ? 'branches' : 'specialists';
      if (open) {
        for (const part of partBoxes(n, box.width)) {
          const chip = el('g', { class: 'part', 'data-part': part.name, transform: `translate(${part.x},${part.y})` });
          chip.append(el('rect', { width: part.width, height: PART.height, rx: 4 }));
          chip.append(el('text', { x: part.width / 2, y: PART.height / 2 + 4, 'text-anchor': 'middle' }, part.name));
          const what = n.fork ? `branch ${part.name}${part.graph === part.name ? '' : ` (step ${part.graph})`}` : `specialist ${part.name}${part.graph === part.name ? '' : ` (graph ${part.graph})`}`;
          chip.append(el('title', {}, `${what}: runs in parallel with the others`));
          group.append(chip);
          parts.set(part.name, chip);
        }
      } else if (closed) {
        summary = el('text', { x: box.width / 2, y: 37, 'text-anchor': 'middle', class: 'coordinator-summary' }, `${n.parts.length} ${noun}`);
        group.append(summary, el('title', {}, `${noun}: ${n.parts.map((p) => p.name).join(', ')} (run in parallel)`));
      }
      if (n.parts.length > 0) group.append(expander(n, box));
    }
    group.addEventListener('click', () => n.id !== END && onSelect(n.id));
    group.addEventListener('keydown', (ev) => ev.key === 'Enter' && n.id !== END && onSelect(n.id));
    nodeEls.set(n.id, { group, badge, parts, summary, node: n });
    return group;
  }

  /** The open/close button in a coordinator's corner: a click redraws with its parts shown or hidden. */
  function expander(n, box) {
    const size = 22;
    const toggle = el('g', { class: 'expander', role: 'button', tabindex: 0, 'data-expand': n.id, 'aria-expanded': String(n.expanded), transform: `translate(${box.width - size - 3},${box.height - size - 3})` });
    toggle.append(el('rect', { width: size, height: size, rx: 4 }), el('text', { x: size / 2, y: size / 2 + 5, 'text-anchor': 'middle' }, n.expanded ? '−' : '+'));
    toggle.append(el('title', {}, n.expanded ? 'hide the parts' : 'show the parts'));
    const flip = (ev) => {
      ev.stopPropagation();
      toggleOpen(n.id);
    };
    toggle.addEventListener('click', flip);
    toggle.addEventListener('keydown', (ev) => ev.key === 'Enter' && flip(ev));
    return toggle;
  }

  /** Opens or closes a coordinator, keeping it where it was on screen. */
  function toggleOpen(id) {
    const before = laid.nodes.get(id);
    const t = viewport.transform();
    const screen = { x: before.x * t.k + t.x, y: before.y * t.k + t.y };
    if (expanded.has(id)) expanded.delete(id);
    else expanded.add(id);
    model = drawable(def, expanded);
    draw(laid.rankdir);
    const after = laid.nodes.get(id);
    viewport.place(after.x, after.y, screen.x, screen.y);
  }

  /**
   * Labels each edge with its estimated probability (`map`: edge key → p, from the transitions
   * panel); edges without one lose theirs. Null clears every label.
   */
  function showProbabilities(map) {
    probabilities = map;
    for (const [key, group] of edgeEls) {
      group.querySelector('.edge-prob')?.remove();
      const p = map?.get(key);
      if (p === undefined) {
        group.removeAttribute('data-probability');
        continue;
      }
      group.setAttribute('data-probability', String(p));
      const spot = edgeSpots.get(group);
      group.append(el('text', { x: spot.x, y: spot.y, class: 'edge-prob', 'text-anchor': 'start' }, `p ${p >= 0.01 ? p.toFixed(2) : '<0.01'}`));
    }
  }

  function update(view, selected) {
    last = { view, selected };
    for (const [id, { group, badge, parts, summary, node }] of nodeEls) {
      const visits = id === END ? (view.status === 'completed' ? 1 : 0) : (view.visits.get(id) ?? 0);
      const seen = node.parts.map((p) => ({ name: p.name, ...partsSeen(view, p.name) }));
      const running = seen.filter((p) => p.active);
      group.setAttribute('data-visits', String(visits));
      group.classList.toggle('visited', visits > 0 || seen.some((p) => p.visited));
      group.classList.toggle('failed', view.failedNodes.has(id));
      group.classList.toggle('active', view.activeNodes.has(id) || running.length > 0);
      group.classList.toggle('waiting', view.waiting?.nodeId === id);
      group.classList.toggle('selected', selected === id);
      badge.textContent = visits > 1 ? `×${visits}` : '';
      for (const p of seen) {
        parts.get(p.name)?.classList.toggle('visited', p.visited);
        parts.get(p.name)?.classList.toggle('active', p.active);
      }
      if (summary) {
        const noun = node.fork ? 'branches' : 'specialists';
        summary.textContent = running.length > 0 ? `${running.length} of ${node.parts.length} running` : seen.some((p) => p.visited) ? `${seen.filter((p) => p.visited).length} of ${node.parts.length} ran` : `${node.parts.length} ${noun}`;
        group.dataset.running = running.map((p) => p.name).join(' ');
      }
    }
    const lit = litNode(view);
    for (const [id, { group }] of nodeEls) group.classList.toggle('lit', id === lit);
    // The drawing follows the lit node when it changes (never the window); a node the reader panned away from stays put otherwise.
    if (lit !== litId && laid?.nodes.has(lit)) {
      const b = laid.nodes.get(lit);
      viewport.reveal({ x: b.x - b.width / 2, y: b.y - b.height / 2, width: b.width, height: b.height });
    }
    litId = lit;
    for (const [key, group] of edgeEls) {
      const times = view.traversed.get(key) ?? 0;
      group.classList.toggle('traversed', times > 0);
      group.classList.toggle('last', view.lastEdge === key);
      group.setAttribute('data-traversed', String(times));
    }
    for (const { entry, item } of legendEls) item.classList.toggle('traversed', legendTaken(entry, view, edgeEls));
  }

  /** Fits the drawing; a drawing too wide for the panel is shown around its start node. */
  function fit() {
    viewport.fit(laid.nodes.get(def.initial ?? '')?.x ?? null);
  }

  model = drawable(def, expanded);
  draw('TB');
  const relayout = () => {
    const wanted = direction();
    if (wanted !== laid.rankdir) draw(wanted);
    fit();
  };
  relayout();
  // Fit again whenever the panel changes size (a window resize, a phone turned round).
  let seenSize = `${svg.clientWidth}x${svg.clientHeight}`;
  const resized = new ResizeObserver(() => {
    if (!svg.isConnected) return resized.disconnect();
    const now = `${svg.clientWidth}x${svg.clientHeight}`;
    if (now === seenSize) return;
    seenSize = now;
    relayout();
  });
  resized.observe(svg);

  update.showProbabilities = showProbabilities;
  update.fit = fit;
  return update;
}
