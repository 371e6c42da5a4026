// The workbench's HTTP client: JSON calls with the token, uploads, and run event streams.

const params = new URLSearchParams(location.search);
if (params.get('token')) {
  sessionStorage.setItem('switchboard-token', params.get('token'));
  // Keep the token out of the address bar, bookmarks and screenshots.
  params.delete('token');
  history.replaceState(null, '', `${location.pathname}${params.size ? `?${params}` : ''}${location.hash}`);
}
const token = sessionStorage.getItem('switchboard-token');

/**
 * Calls the API; throws an Error carrying the server's message on a non-2xx answer. Every request
 * that changes something is sent as JSON (an empty object when there is nothing to say): the server
 * refuses other content types, which any web page could send.
 */
export async function api(path, init = {}) {
  const headers = new Headers(init.headers);
  if (token) headers.set('authorization', `Bearer ${token}`);
  if (init.method && init.method !== 'GET' && init.body === undefined) init = { ...init, body: '{}' };
  if (typeof init.body === 'string') headers.set('content-type', 'application/json');
  const res = await fetch(path, { ...init, headers });
  const body = res.headers.get('content-type')?.includes('json') ? await res.json() : await res.text();
  if (!res.ok) throw new Error(body?.error?.message ?? `${res.status} ${res.statusText}`);
  return body;
}

export const listGraphs = () => api('/api/graphs');
export const listScenarios = () => api('/api/scenarios');
/** Stored runs, newest first; `params` (URLSearchParams) filters them by `search`, `status`, `graph` and `limit`. */
export const listRuns = (params = new URLSearchParams({ limit: '50' })) => api(`/api/runs?${params}`);
export const latestEval = () => api('/api/eval');
export const getRun = (runId) => api(`/api/runs/${encodeURIComponent(runId)}`);
export const definition = (graph) => api(`/api/graphs/${encodeURIComponent(graph)}/definition`);
export const analytics = (graph) => api(`/api/graphs/${encodeURIComponent(graph)}/analytics`);
export const startScenario = (id) => api(`/api/scenarios/${encodeURIComponent(id)}/runs`, { method: 'POST' });
/** Resumes a waiting run with a reply; without one, a run paused at a breakpoint goes on. */
export const resumeRun = (runId, reply) => api(`/api/runs/${encodeURIComponent(runId)}/resume`, { method: 'POST', body: JSON.stringify(reply === undefined ? {} : { reply }) });
/** A run's full state after a step (its last step when `step` is left out). */
export const stateAt = (runId, step) => api(`/api/runs/${encodeURIComponent(runId)}/state${step === undefined ? '' : `?at=${step}`}`);
/** Starts a fork of a run at a step, with the state to go on with (the parent's when left out). */
export const forkRun = (runId, at, state) => api(`/api/runs/${encodeURIComponent(runId)}/fork`, { method: 'POST', body: JSON.stringify(state === undefined ? { at } : { at, state }) });
export const cancelRun = (runId) => api(`/api/runs/${encodeURIComponent(runId)}/cancel`, { method: 'POST' });

/** A file's bytes as base64 (without the `data:` prefix). */
function base64Of(file) {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result).replace(/^data:[^,]*,/, ''));
    reader.onerror = () => reject(new Error(`the image ${file.name} could not be read: ${reader.error?.message ?? 'unknown error'}`));
    reader.readAsDataURL(file);
  });
}

/**
 * Starts a run from the form, as JSON; an attached image travels as `{ mediaType, base64, name }`,
 * breakpoints as `{ before, after }`, `options` (`{ budget?, faults? }`) as they are.
 */
export async function startRun(graph, message, file, breakpoints, options = {}) {
  /** @type {Record<string, unknown>} */
  const body = { ...(graph ? { graph, message } : { message }), ...options };
  if (breakpoints && (breakpoints.before.length > 0 || breakpoints.after.length > 0)) body.breakpoints = breakpoints;
  if (file) body.image = { mediaType: file.type, base64: await base64Of(file), name: file.name.slice(0, 200) };
  return api('/api/runs', { method: 'POST', body: JSON.stringify(body) });
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
