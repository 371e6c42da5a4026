// The workbench page: wires the API, the graph, the timeline, the inspector, the lanes and the history.
import * as api from './api.js';
import { renderEval } from './evalPanel.js';
import { renderGraph } from './graphView.js';
import { renderHistory } from './history.js';
import { renderInspector } from './inspector.js';
import { renderLanes } from './lanes.js';
import { runViewAt } from './runView.js';
import { createTimeline } from './timeline.js';
import { createTimeTravel } from './timeTravel.js';
import { createWaterfall } from './waterfall.js';
import { createRunSearch } from './runSearch.js';
import { createRunOptions, runModelOf } from './startForm.js';
import { createReplyForm } from './replyForm.js';
import { edgeProbabilities, renderTransitions } from './transitionsPanel.js';

/** The page's elements by id (inputs, selects and buttons alike). @type {(id: string) => any} */
const $ = (id) => document.getElementById(id);
const state = { graphs: [], defaultGraph: null, runs: [], run: null, events: [], stopFollow: null, selected: null, update: null, shownGraph: null };
const definitions = new Map();

const waterfall = createWaterfall($('waterfall'));
const runOptions = createRunOptions($('run-options'));
const replyForm = createReplyForm({ fields: $('reply-fields'), text: $('reply') });
const runSearch = createRunSearch({ text: $('runs-search'), status: $('runs-status'), graph: $('runs-graph') }, () => refreshRuns());
const timeline = createTimeline({ scrubber: $('scrubber'), position: $('position'), play: $('play'), replay: $('replay'), live: $('live') }, (at) => render(at));

const travel = createTimeTravel(
  {
    list: $('step-list'),
    slider: $('step-slider'),
    title: $('step-title'),
    state: $('step-state'),
    forkButton: $('fork-here'),
    forkForm: $('fork-form'),
    forkState: $('fork-state'),
    forkError: $('fork-error'),
  },
  { onFork: (runId) => (showRunHeader(), openRun(runId, state.run.graph)) },
);

/** Loads the run's steps into the time-travel panel and names the run it was forked from. */
async function showTravel(runId) {
  try {
    const detail = await travel.show(runId);
    if (!detail || state.run?.runId !== runId) return;
    $('travel-section').hidden = false;
    const parent = $('run-parent');
    if (detail.parentRunId) {
      const link = Object.assign(document.createElement('a'), { href: `#run=${detail.parentRunId}`, textContent: detail.parentRunId });
      link.addEventListener('click', (ev) => {
        ev.preventDefault();
        openRun(detail.parentRunId, detail.graph);
      });
      parent.replaceChildren('forked from ', link, ` at step ${detail.forkedAt}`);
    } else parent.replaceChildren();
  } catch (error) {
    showError($('fork-error'), error);
  }
}

function showError(el, error) {
  el.hidden = !error;
  el.textContent = error ? String(error.message ?? error) : '';
}

async function showGraph(graph) {
  if (state.shownGraph === graph) return;
  if (!definitions.has(graph)) definitions.set(graph, await api.definition(graph));
  state.shownGraph = graph;
  // The model select offers what this graph runs on; hidden for a graph with no model choice (a model sent for it is refused).
  runOptions.setModels(state.graphs.find((g) => g.name === graph)?.models ?? []);
  state.update = renderGraph($('graph'), definitions.get(graph), (nodeId) => {
    state.selected = nodeId;
    render(timeline.position());
  });
  // A new drawing has no probabilities: the panel waits to be asked again for this graph.
  $('transitions-graph').textContent = graph;
  delete document.body.dataset.analyzed;
  $('transitions').replaceChildren(Object.assign(document.createElement('p'), { className: 'muted', textContent: `Analyse the stored runs of ${graph}.` }));
  render(timeline.position());
}

function renderEvents(at) {
  const list = $('events');
  const items = state.events.slice(0, at).map((e, i) => {
    const item = document.createElement('li');
    item.className = `event ${i === at - 1 ? 'current' : ''}`;
    item.dataset.seq = String(e.seq);
    item.textContent = `#${e.seq} ${e.type}${e.nodeId ? ` · ${e.nodeId}` : ''}${e.path && e.path !== 'root' ? ` · ${e.path}` : ''}`;
    item.addEventListener('click', () => pick(e.seq, e.nodeId));
    return item;
  });
  // The list scrolls inside its own panel, never the window: while live it follows new events only
  // when the reader is at its bottom; on the timeline it shows the current event.
  const atBottom = list.scrollHeight - list.scrollTop - list.clientHeight < 8;
  list.replaceChildren(...items);
  if (timeline.isLive()) {
    if (atBottom) list.scrollTop = list.scrollHeight;
    return;
  }
  const current = list.lastElementChild;
  if (current instanceof HTMLElement && (current.offsetTop < list.scrollTop || current.offsetTop + current.offsetHeight > list.scrollTop + list.clientHeight)) {
    list.scrollTop = current.offsetTop - list.clientHeight / 2;
  }
}

function render(at) {
  const view = runViewAt(state.events, at);
  const full = at === state.events.length ? view : runViewAt(state.events, state.events.length);
  state.update?.(view, state.selected);
  renderInspector($('inspector'), $('inspector-node'), view, state.selected);
  renderLanes($('lanes'), view, pick);
  renderEvents(at);
  document.body.dataset.runStatus = state.run ? full.status : 'none';
  document.body.dataset.viewStatus = view.status;
  $('run-status').textContent = state.run ? view.status : 'no run';
  $('run-status').className = `badge ${view.status}`;
  $('run-id').textContent = state.run?.runId ?? '';
  $('run-graph').textContent = state.run?.graph ?? '';
  const model = state.run ? runModelOf(state.events) : null;
  $('run-model').hidden = model === null;
  $('run-model').textContent = model === null ? '' : `model ${model}`;
  // An error is shown as one, never in the answer box.
  $('answer').hidden = view.answer === null;
  $('answer').textContent = view.answer ?? '';
  $('run-error').hidden = view.error === null;
  $('run-error').textContent = view.error ? errorText(view.error) : '';
  $('waiting').hidden = view.waiting === null;
  $('waiting').textContent = view.waiting ? `Waiting at ${view.waiting.nodeId}: ${view.waiting.reason}` : '';
  // Router answers their route maps did not have: the group was skipped, which may be why the run went where it did.
  $('route-notes').hidden = view.unmatched.length === 0;
  $('route-notes').textContent = view.unmatched.map((u) => `⚠ ${u.nodeId}: router answered "${u.answer}", not in its route map (${u.routeKeys.join(', ')}); group skipped`).join('\n');
  // Replies go to the run as it is now, so the box shows only at the live end.
  $('reply-form').hidden = !(full.status === 'waiting' && at === state.events.length);
  // A run paused at a breakpoint takes no reply: it goes on.
  const lastWait = state.events.findLast((e) => e.type === 'run.waiting');
  const atBreakpoint = full.status === 'waiting' && lastWait?.breakpoint !== undefined;
  $('continue-run').hidden = !atBreakpoint;
  $('reply').hidden = atBreakpoint;
  $('reply').required = !atBreakpoint;
  $('reply-button').hidden = atBreakpoint;
  // A human node with a reply schema gets a form built from it instead of the text box.
  const waitingAt = full.status === 'waiting' && !atBreakpoint ? lastWait?.nodeId : undefined;
  const replySchema = waitingAt ? definitions.get(state.run?.graph)?.states.find((s) => s.nodeId === waitingAt)?.replySchema : undefined;
  replyForm.show(replySchema, `${state.run?.runId}:${lastWait?.seq}`);
}

/** A run's error as the header shows it: where, what, and its code. */
function errorText(error) {
  const where = error.nodeId ? ` at ${error.nodeId}` : '';
  const code = error.code ? ` [${error.code}]` : '';
  return `Failed${where}: ${error.message}${code}`;
}

function pick(seq, nodeId) {
  const index = state.events.findIndex((e) => e.seq === seq);
  if (nodeId) state.selected = nodeId;
  timeline.jump(index + 1);
}

/** Brings the run header into view: only when the person opens a run, never when events arrive. */
function showRunHeader() {
  if (window.scrollY > 0) window.scrollTo({ top: 0 });
}

async function openRun(runId, graph) {
  state.stopFollow?.();
  state.run = { runId, graph };
  state.events = [];
  state.selected = null;
  timeline.reset();
  history.replaceState(null, '', `#run=${runId}`);
  $('graph-select').value = graph;
  await showGraph(graph);
  renderHistory($('history'), state.runs, runId, (run) => (showRunHeader(), openRun(run.runId, run.graph)));
  waterfall.show(runId);
  state.stopFollow = api.followRun(runId, {
    onEvent: (event) => {
      if (state.run?.runId !== runId) return;
      state.events.push(event);
      timeline.setLength(state.events.length);
      waterfall.refresh();
    },
    onEnd: () => (refreshRuns(), showTravel(runId), waterfall.refresh()),
    onState: (s) => {
      $('connection').textContent = s;
      $('connection').dataset.state = s;
    },
  });
  refreshRuns();
  void showTravel(runId);
}

/** Analyses the stored runs of the shown graph: the heat map in the panel, probabilities on the edges. */
async function analyzeShownGraph() {
  const graph = state.shownGraph;
  if (!graph) return;
  try {
    const { analyses } = await api.analytics(graph);
    if (state.shownGraph !== graph) return;
    renderTransitions($('transitions'), graph, analyses[graph]);
    state.update?.showProbabilities(edgeProbabilities(analyses[graph]));
    document.body.dataset.analyzed = graph;
  } catch (error) {
    $('transitions').replaceChildren(Object.assign(document.createElement('p'), { className: 'error', textContent: String(error.message ?? error) }));
  }
}

/** The query of the last list asked for: an older answer arriving late is dropped. */
let listing = 0;

async function refreshRuns() {
  const mine = ++listing;
  const query = runSearch.query();
  let runs;
  try {
    runs = await api.listRuns(query);
  } catch (error) {
    if (mine === listing) showError($('runs-error'), error);
    return;
  }
  if (mine !== listing) return;
  showError($('runs-error'), null);
  state.runs = runs;
  renderHistory($('history'), state.runs, state.run?.runId, (run) => (showRunHeader(), openRun(run.runId, run.graph)), runSearch.active());
  $('history').dataset.query = query.toString();
}

async function init() {
  // A deep link (#run=…) or a reload opens at the top, with the run header in view.
  history.scrollRestoration = 'manual';
  window.scrollTo({ top: 0 });
  const { graphs, default: byDefault, faults } = await api.listGraphs();
  runOptions.setFaults(faults ?? []);
  state.graphs = graphs;
  state.defaultGraph = byDefault;
  runSearch.setGraphs(graphs.map((g) => g.name));
  const select = $('graph-select');
  select.replaceChildren(...graphs.map((g) => Object.assign(document.createElement('option'), { value: g.name, textContent: g.name, selected: g.name === byDefault })));
  // Choosing a graph shows its machine and is where the next free-text run starts.
  select.addEventListener('change', () => {
    state.stopFollow?.();
    state.run = null;
    state.events = [];
    $('travel-section').hidden = true;
    timeline.reset();
    history.replaceState(null, '', location.pathname + location.search);
    void showGraph(select.value);
  });

  api.latestEval().then((summary) => renderEval($('eval'), summary), () => renderEval($('eval'), null));
  const scenarios = await api.listScenarios();
  if (scenarios.length > 0) {
    $('scenarios').replaceChildren(
      ...scenarios.map((s) => {
        const button = Object.assign(document.createElement('button'), { type: 'button', className: 'scenario', textContent: s.title, title: s.message });
        button.dataset.scenario = s.id;
        button.addEventListener('click', async () => {
          showError($('start-error'), null);
          try {
            const { runId } = await api.startScenario(s.id);
            showRunHeader();
            await openRun(runId, s.graph);
          } catch (error) {
            showError($('start-error'), error);
          }
        });
        return button;
      }),
    );
  }

  $('start-form').addEventListener('submit', async (ev) => {
    ev.preventDefault();
    showError($('start-error'), null);
    const graph = select.value || byDefault;
    try {
      const nodes = (id) => $(id).value.split(',').map((n) => n.trim()).filter((n) => n !== '');
      const { runId } = await api.startRun(graph, $('message').value, $('image').files[0], { before: nodes('break-before'), after: nodes('break-after') }, runOptions.values());
      $('message').value = '';
      $('image').value = '';
      showRunHeader();
      await openRun(runId, graph);
    } catch (error) {
      showError($('start-error'), error);
    }
  });

  $('reply-form').addEventListener('submit', async (ev) => {
    ev.preventDefault();
    showError($('reply-error'), null);
    try {
      await api.resumeRun(state.run.runId, replyForm.active() ? replyForm.reply() : $('reply').value);
      $('reply').value = '';
    } catch (error) {
      showError($('reply-error'), error);
    }
  });
  $('continue-run').addEventListener('click', async () => {
    showError($('reply-error'), null);
    try {
      await api.resumeRun(state.run.runId);
    } catch (error) {
      showError($('reply-error'), error);
    }
  });
  $('cancel-run').addEventListener('click', async () => {
    try {
      await api.cancelRun(state.run.runId);
    } catch (error) {
      showError($('reply-error'), error);
    }
  });
  $('refresh-runs').addEventListener('click', refreshRuns);
  $('analyze').addEventListener('click', analyzeShownGraph);

  await refreshRuns();
  const fromHash = /^#run=(.+)$/.exec(location.hash)?.[1];
  const known = fromHash && state.runs.find((r) => r.runId === fromHash);
  if (known) await openRun(known.runId, known.graph);
  else if (byDefault) await showGraph(byDefault);
  // Runs started elsewhere (the CLI, another tab) show up too.
  setInterval(refreshRuns, 10_000);
  document.body.dataset.ready = 'true';
}

init().catch((error) => showError($('start-error'), error));
