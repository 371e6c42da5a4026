// The run list's search and filters: free text (run id, input, answer), status and graph. Each change
// asks the API again (`GET /api/runs?search=&status=&graph=`); typing waits for a pause first.

const STATUSES = ['queued', 'running', 'waiting', 'completed', 'max-steps', 'failed', 'cancelled', 'interrupted', 'aborted', 'budget-exceeded'];

function option(value, text) {
  return Object.assign(document.createElement('option'), { value, textContent: text });
}

/**
 * Wires the filter controls: `text` (an input), `status` and `graph` (selects); `onChange()` runs
 * after a change. `query()` gives the filters as URL parameters; `setGraphs(names)` fills the graph list.
 */
export function createRunSearch({ text, status, graph }, onChange, { waitMs = 250 } = {}) {
  status.replaceChildren(option('', 'any status'), ...STATUSES.map((s) => option(s, s)));
  graph.replaceChildren(option('', 'any graph'));
  let timer = null;
  text.addEventListener('input', () => {
    clearTimeout(timer);
    timer = setTimeout(onChange, waitMs);
  });
  text.addEventListener('keydown', (ev) => {
    if (ev.key !== 'Enter') return;
    ev.preventDefault();
    clearTimeout(timer);
    onChange();
  });
  status.addEventListener('change', onChange);
  graph.addEventListener('change', onChange);
  return {
    query() {
      const params = new URLSearchParams({ limit: '50' });
      if (text.value.trim() !== '') params.set('search', text.value);
      if (status.value) params.set('status', status.value);
      if (graph.value) params.set('graph', graph.value);
      return params;
    },
    /** True when any filter is set (the list then shows matches, not every run). */
    active() {
      return text.value.trim() !== '' || status.value !== '' || graph.value !== '';
    },
    setGraphs(names) {
      graph.replaceChildren(option('', 'any graph'), ...names.map((n) => option(n, n)));
    },
  };
}
