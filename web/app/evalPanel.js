// The workbench's eval panel: the last `npm run eval` report (GET /api/eval).
// Every name in a report (split, model, facts, routes) is text from a file: it is set as text, never parsed as HTML.

function h(tag, attrs = {}, ...children) {
  const node = Object.assign(document.createElement(tag), attrs);
  node.append(...children);
  return node;
}

const row = (label, r) => h('tr', {}, h('th', {}, label), h('td', {}, `${r.percent.toFixed(1)}%`), h('td', { className: 'muted' }, `${r.correct}/${r.total}`));

/** Renders the eval summary into `el`; `summary` null shows how to make one. */
export function renderEval(el, summary) {
  if (!summary) {
    el.replaceChildren(h('p', { className: 'muted' }, 'no eval yet — run ', h('code', {}, 'npm run eval')));
    return;
  }
  const facts = Object.entries(summary.facts).filter(([k]) => k !== 'all').map(([k, r]) => row(`facts · ${k}`, r));
  const routes = Object.keys(summary.confusion);
  const matrix = h(
    'table',
    { className: 'confusion' },
    h('tr', {}, h('th'), ...routes.map((r) => h('th', {}, r))),
    ...routes.map((r) =>
      h('tr', {}, h('th', {}, r), ...routes.map((p) => h('td', { className: r === p ? 'hit' : summary.confusion[r][p] ? 'miss' : '' }, String(summary.confusion[r][p])))),
    ),
  );
  el.replaceChildren(
    h('p', { className: 'muted' }, `${summary.messages} ${summary.split} messages · ${summary.model} · ${new Date(summary.startedAt).toLocaleString()}`),
    h('table', { className: 'eval-figures' }, row('route', summary.route), row('entities', summary.entities), row('task split', summary.tasks), row('answers with facts', summary.facts.all), ...facts),
    h('details', {}, h('summary', {}, `confusion (rows expected) · ${summary.misses} misses`), matrix),
  );
}
