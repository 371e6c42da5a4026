// The workbench's HTTP client: JSON calls with the token, uploads, and run event streams.

const params = new URLSearchParams(location.search);
if (params.get('token')) {
  sessionStorage.setItem('switchboard-token', params.get('token'));
  // Keep the token out of the address bar, bookmarks and screenshots.
  params.delete('token');
  history.replaceState(null, '', `${location.pathname}${params.size ? `?${params}` : ''}${location.hash}`);
}
const token = sessionStorage.getItem('switchboard-token');

/** Calls the API; throws an Error carrying the server's message on a non-2xx answer. */
export async function api(path, init = {}) {
  const headers = new Headers(init.headers);
  if (token) headers.set('authorization', `Bearer ${token}`);
  if (typeof init.body === 'string') headers.set('content-type', 'application/json');
  const res = await fetch(path, { ...init, headers });
  const body = res.headers.get('content-type')?.includes('json') ? await res.json() : await res.text();
  if (!res.ok) throw new Error(body?.error?.message ?? `${res.status} ${res.statusText}`);
  return body;
}

export const listGraphs = () => api('/api/graphs');
export const listScenarios = () => api('/api/scenarios');
export const listRuns = () => api('/api/runs?limit=50');
export const getRun = (runId) => api(`/api/runs/${encodeURIComponent(runId)}`);
export const definition = (graph) => api(`/api/graphs/${encodeURIComponent(graph)}/definition`);
export const startScenario = (id) => api(`/api/scenarios/${encodeURIComponent(id)}/runs`, { method: 'POST' });
export const resumeRun = (runId, reply) => api(`/api/runs/${encodeURIComponent(runId)}/resume`, { method: 'POST', body: JSON.stringify({ reply }) });
export const cancelRun = (runId) => api(`/api/runs/${encodeURIComponent(runId)}/cancel`, { method: 'POST' });

/** Starts a run from the form: multipart when an image is attached, JSON otherwise. */
export function startRun(graph, message, file) {
  if (file) {
    const form = new FormData();
    form.set('message', message);
    if (graph) form.set('graph', graph);
    form.set('image', file);
    return api('/api/runs', { method: 'POST', body: form });
  }
  return api('/api/runs', { method: 'POST', body: JSON.stringify(graph ? { graph, message } : { message }) });
}

/**
 * Follows a run's events from the start: `onEvent(event)` once per event in seq order (the browser
 * resumes from Last-Event-ID after a dropped connection), `onEnd(status)` when the run finished,
 * `onState('open' | 'reconnecting' | 'closed')`. Returns a function that stops following.
 */
export function followRun(runId, { onEvent, onEnd, onState }) {
  const url = `/api/runs/${encodeURIComponent(runId)}/stream${token ? `?token=${encodeURIComponent(token)}` : ''}`;
  const source = new EventSource(url);
  let last = 0;
  source.onopen = () => onState('open');
  source.onmessage = (message) => {
    const event = JSON.parse(message.data);
    if (event.seq <= last) return;
    last = event.seq;
    onEvent(event);
  };
  source.addEventListener('end', (message) => {
    source.close();
    onState('closed');
    onEnd(JSON.parse(message.data).status);
  });
  source.onerror = () => onState(source.readyState === EventSource.CLOSED ? 'closed' : 'reconnecting');
  return () => {
    source.close();
    onState('closed');
  };
}
