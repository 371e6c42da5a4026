// The workbench's eval panel: the last `npm run eval` report (GET /api/eval).

/** Renders the eval summary into `el`; `summary` null shows how to make one. */
export function renderEval(el, summary) {
  if (!summary) {
    el.innerHTML = '<p class="muted">no eval yet — run <code>npm run eval</code></p>';
    return;
  }
  const row = (label, r) => `<tr><th>${label}</th><td>${r.percent.toFixed(1)}%</td><td class="muted">${r.correct}/${r.total}</td></tr>`;
  const facts = Object.entries(summary.facts).filter(([k]) => k !== 'all').map(([k, r]) => row(`facts · ${k}`, r)).join('');
  const routes = Object.keys(summary.confusion);
  const matrix =
    `<table class="confusion"><tr><th></th>${routes.map((r) => `<th>${r}</th>`).join('')}</tr>` +
    routes.map((r) => `<tr><th>${r}</th>${routes.map((p) => `<td class="${r === p ? 'hit' : summary.confusion[r][p] ? 'miss' : ''}">${summary.confusion[r][p]}</td>`).join('')}</tr>`).join('') +
    '</table>';
  el.innerHTML =
    `<p class="muted">${summary.messages} ${summary.split} messages · ${summary.model} · ${new Date(summary.startedAt).toLocaleString()}</p>` +
    `<table class="eval-figures">${row('route', summary.route)}${row('entities', summary.entities)}${row('task split', summary.tasks)}${row('answers with facts', summary.facts.all)}${facts}</table>` +
    `<details><summary>confusion (rows expected) · ${summary.misses} misses</summary>${matrix}</details>`;
}
