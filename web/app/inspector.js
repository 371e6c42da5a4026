// The node inspector: every execution (round) of the selected node up to the timeline's position.

function h(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'class') node.className = v;
    else node.setAttribute(k, v);
  }
  for (const child of children) if (child !== null && child !== undefined) node.append(child);
  return node;
}

const json = (value) => (typeof value === 'string' ? value : JSON.stringify(value, null, 2));

function field(name, value, cls = '') {
  if (value === null || value === undefined || value === '') return null;
  return h('div', { class: `field ${cls}` }, h('span', { class: 'field-name' }, name), h('pre', { class: 'field-value' }, json(value)));
}

function deltaView(delta) {
  if (!delta) return field('state delta', '(no writes)', 'delta');
  const rows = Object.entries(delta.set ?? {}).map(([k, v]) => h('li', {}, h('code', {}, k), ' = ', h('code', {}, JSON.stringify(v))));
  for (const k of delta.deleted ?? []) rows.push(h('li', {}, h('code', {}, k), ' removed'));
  if (rows.length === 0) return field('state delta', '(no writes)', 'delta');
  return h('div', { class: 'field delta' }, h('span', { class: 'field-name' }, 'state delta'), h('ul', { class: 'delta-list' }, ...rows));
}

/** Renders the rounds of `nodeId` from `view` into `container`. */
export function renderInspector(container, label, view, nodeId) {
  label.textContent = nodeId ? `· ${nodeId}` : '';
  if (!nodeId) {
    container.replaceChildren(h('p', { class: 'muted' }, 'Click a node in the graph.'));
    return;
  }
  const rounds = view.spans.get(nodeId) ?? [];
  if (rounds.length === 0) {
    container.replaceChildren(h('p', { class: 'muted' }, `${nodeId} has not run at this point of the timeline.`));
    return;
  }
  const blocks = rounds.map((r) => {
    const head = h(
      'div',
      { class: 'round-head' },
      h('strong', {}, `Round ${r.round}`),
      h('span', { class: `badge ${r.status}` }, r.status),
      h('span', { class: 'muted' }, `step ${r.step ?? '?'} · ${r.durationMs === null ? '…' : `${r.durationMs} ms`} · ${r.path}`),
      h('code', { class: 'span-id', title: 'span id' }, r.spanId ?? ''),
    );
    const custom = r.events.length === 0 ? null : h('div', { class: 'field' }, h('span', { class: 'field-name' }, 'events'), h('ul', { class: 'custom-events' }, ...r.events.map((e) => h('li', {}, h('code', {}, e.type), ' ', summary(e)))));
    return h(
      'article',
      { class: 'round', 'data-round': String(r.round) },
      head,
      field('input', r.input),
      field('metadata', r.metadata),
      field('output', r.output),
      r.result?.toolCalls ? field('tool calls', r.result.toolCalls) : null,
      r.status === 'running' || r.status === 'waiting' ? null : deltaView(r.delta),
      r.error ? field('error', `${r.error.code}: ${r.error.message}`, 'error') : null,
      r.unmatched?.length
        ? field('route unmatched', r.unmatched.map((u) => `router #${u.group + 1} answered "${u.answer}", not in its route map (${u.routeKeys.join(', ')}): group skipped`).join('\n'), 'warning')
        : null,
      custom,
    );
  });
  container.replaceChildren(...blocks);
}

function summary(e) {
  const { type, runId, seq, at, traceId, spanId, parentSpanId, path, nodeId, ...rest } = e;
  const text = JSON.stringify(rest);
  return text.length > 160 ? `${text.slice(0, 159)}…` : text;
}
