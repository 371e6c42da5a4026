// The workbench's transitions panel: the Markov chain of a graph's stored runs (GET
// /api/graphs/:name/analytics) as a heat map of its transition matrix, with how runs end, the
// expected steps, the thrash score and the hottest loops.
import { edgeKey } from './runView.js';

const START = '__start__';
const END_PREFIX = '__end__:';

/** A state as people read it. */
export const shownState = (s) => (s === START ? 'START' : s.startsWith(END_PREFIX) ? `end: ${s.slice(END_PREFIX.length)}` : s);
const percent = (p) => `${(p * 100).toFixed(1)}%`;

/** A probability as a cell shows it: two decimals, fewer digits for tiny ones. */
export const formatP = (p) => (p >= 0.01 || p === 0 ? p.toFixed(2) : p >= 0.001 ? p.toFixed(3) : '<.001');

function cell(tag, text, attrs = {}) {
  const el = document.createElement(tag);
  el.textContent = text;
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  return el;
}

/**
 * Renders one workflow's analysis into `el`: a matrix whose cells are shaded by probability (rows:
 * from, columns: to), then the figures. `analysis` null (no stored runs) says so.
 */
export function renderTransitions(el, workflow, analysis) {
  if (!analysis || analysis.transitions === 0) {
    el.replaceChildren(cell('p', `no stored runs of ${workflow} yet`, { class: 'muted' }));
    return;
  }
  const columns = analysis.states.filter((s) => s !== START);
  const table = document.createElement('table');
  table.className = 'heatmap';
  table.dataset.workflow = workflow;
  const head = document.createElement('tr');
  head.append(cell('th', 'from \\ to'), ...columns.map((s) => cell('th', shownState(s), { scope: 'col' })));
  table.append(head);
  analysis.transient.forEach((from, i) => {
    const row = document.createElement('tr');
    row.append(cell('th', shownState(from), { scope: 'row' }));
    for (const to of columns) {
      const j = analysis.states.indexOf(to);
      const p = analysis.matrix[i][j];
      const count = analysis.counts[i][j];
      const td = cell('td', p === 0 ? '' : formatP(p), { 'data-from': from, 'data-to': to, 'data-p': p, title: `${shownState(from)} → ${shownState(to)}: ${percent(p)} (${count} of ${analysis.stats[from].visits})` });
      // Shade by probability: transparent at 0, full at 1.
      td.style.background = `rgba(220, 38, 38, ${(0.08 + 0.8 * p).toFixed(3)})`;
      if (p === 0) td.style.background = '';
      if (p > 0.55) td.style.color = '#fff';
      row.append(td);
    }
    table.append(row);
  });
  const ends = Object.entries(analysis.endProbabilities).map(([status, p]) => `${status} ${percent(p)}`).join(', ');
  const loops = analysis.cycles.slice(0, 3).map((c) => `${[...c.states, c.states[0]].map(shownState).join(' → ')} ×${c.count}`);
  const figures = cell('p', '', { class: 'transition-figures' });
  figures.textContent = `${analysis.runs} runs · ${analysis.transitions} transitions · ends: ${ends} · expected steps ${analysis.expectedSteps.toFixed(2)} · thrash ${percent(analysis.thrash.score)}`;
  const children = [figures, table];
  if (loops.length > 0) children.push(cell('p', `hottest loops: ${loops.join('; ')}`, { class: 'muted transition-loops' }));
  el.replaceChildren(...children);
}

/**
 * The probability to show on each drawn edge (keyed like the graph's edges, END as `__end__`): a hop between
 * nodes as estimated; a hop to END as the chance of ending completed from there.
 */
export function edgeProbabilities(analysis) {
  const out = new Map();
  if (!analysis) return out;
  analysis.transient.forEach((from, i) => {
    analysis.states.forEach((to, j) => {
      const p = analysis.matrix[i][j];
      if (p === 0 || from === START) return;
      if (to.startsWith(END_PREFIX)) {
        if (to === `${END_PREFIX}completed`) out.set(edgeKey(from, '__end__'), p);
        return;
      }
      out.set(edgeKey(from, to), p);
    });
  });
  return out;
}
