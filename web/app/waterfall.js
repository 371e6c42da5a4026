// The span waterfall of the open run (GET /api/runs/:id/spans): one row per run, node, model call,
// tool call, MCP request and specialist, indented as they nest, each bar placed at its start offset
// and as long as its latency, with its tokens; the run's totals above. A live run is read again as
// its events arrive (at most every `intervalMs`), so it shows what a stored run of the same events shows.
import { api } from './api.js';

const ms = (n) => (n === null ? 'running' : n >= 1000 ? `${(n / 1000).toFixed(2)} s` : `${Math.round(n)} ms`);
const tokens = (t) => `${t.total} tok`;

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

/** Renders a `RunSpansJson` into `container`. */
export function renderWaterfall(container, spans) {
  if (!spans || spans.spans.length === 0) {
    container.replaceChildren(el('p', 'muted', 'No spans yet.'));
    return;
  }
  const width = Math.max(spans.durationMs, 1);
  const totals = el('p', 'waterfall-totals');
  totals.dataset.tokensTotal = String(spans.tokens.total);
  totals.dataset.tokensInput = String(spans.tokens.input);
  totals.dataset.tokensOutput = String(spans.tokens.output);
  totals.dataset.durationMs = String(spans.durationMs);
  totals.textContent =
    `${ms(spans.durationMs)} · ${spans.tokens.total} tokens (${spans.tokens.input} in, ${spans.tokens.output} out) · ` +
    `${spans.modelCalls} model, ${spans.toolCalls} tool, ${spans.mcpCalls} MCP calls`;
  const rows = spans.spans.map((span) => {
    const row = el('li', `span-row ${span.kind} ${span.status}`);
    Object.assign(row.dataset, { spanId: span.id, kind: span.kind, name: span.name, status: span.status, startMs: String(span.startMs), durationMs: String(span.durationMs), tokens: String(span.tokens.total) });
    const label = el('span', 'span-label', span.name);
    label.style.paddingLeft = `${span.depth * 12}px`;
    label.title = `${span.kind} ${span.name}${span.path === 'root' ? '' : ` · ${span.path}`} · ${span.status}`;
    const track = el('span', 'span-track');
    const bar = el('span', 'span-bar');
    const end = span.durationMs === null ? spans.durationMs : span.startMs + span.durationMs;
    bar.style.left = `${(span.startMs / width) * 100}%`;
    bar.style.width = `max(2px, ${((end - span.startMs) / width) * 100}%)`;
    track.append(bar);
    row.append(label, track, el('span', 'span-ms', ms(span.durationMs)), el('span', 'span-tokens', tokens(span.tokens)));
    return row;
  });
  const list = el('ol', 'span-rows');
  list.append(...rows);
  container.replaceChildren(totals, list);
}

/**
 * The waterfall panel: `show(runId)` reads and draws a run's spans; `refresh()` reads them again
 * (throttled), for a live run's new events.
 */
export function createWaterfall(container, { intervalMs = 400 } = {}) {
  let runId = null;
  let timer = null;
  let generation = 0;
  async function load() {
    timer = null;
    const wanted = runId;
    const mine = ++generation;
    if (!wanted) return;
    try {
      const spans = await api(`/api/runs/${encodeURIComponent(wanted)}/spans`);
      if (mine !== generation || wanted !== runId) return;
      renderWaterfall(container, spans);
      container.dataset.runId = wanted;
      container.dataset.lastSeq = String(spans.spans.reduce((m, s) => Math.max(m, s.endSeq ?? s.startSeq), 0));
    } catch (error) {
      if (mine === generation) container.replaceChildren(el('p', 'error', String(error.message ?? error)));
    }
  }
  return {
    show(id) {
      runId = id;
      delete container.dataset.runId;
      container.replaceChildren(el('p', 'muted', 'Loading spans…'));
      void load();
    },
    refresh() {
      if (runId && timer === null) timer = setTimeout(load, intervalMs);
    },
  };
}
