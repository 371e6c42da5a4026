// What a run looks like after its first `upto` events: a pure function of the stored events, so
// the timeline can show any moment of a finished run without running anything again.

const FINISHED = new Set(['completed', 'max-steps', 'failed', 'cancelled', 'aborted', 'budget-exceeded']);

/** The edge key the graph view uses. */
export const edgeKey = (from, to) => `${from}→${to}`;

/**
 * @param {object[]} events - the run's events (redacted event JSON with `seq`, `type`, `path`, `nodeId`…), in seq order
 * @param {number} upto - how many of them have happened
 */
export function runViewAt(events, upto) {
  const view = {
    status: events.length === 0 || upto <= 0 ? 'none' : 'running',
    active: new Set(), // `${path}|${nodeId}` of nodes in flight
    activeNodes: new Set(), // node ids in flight at the root path
    waiting: null, // { nodeId, reason }
    visits: new Map(), // root node id → executions so far
    traversed: new Map(), // edgeKey → times taken (root path)
    lastEdge: null,
    spans: new Map(), // node id → rounds [{ round, path, spanId, step, input, metadata, output, result, delta, durationMs, status, events }]
    lanes: new Map(), // path → [{ seq, type, nodeId, label }]
    answer: null,
    error: null,
    failedNodes: new Set(), // root node ids whose step failed (the node threw, or its routing failed)
    unmatched: [], // [{ nodeId, group, answer, routeKeys, path }]: router answers their route maps did not have
    request: null,
    current: events[upto - 1] ?? null,
  };
  const openSpans = new Map(); // spanId → round
  for (let i = 0; i < upto && i < events.length; i++) {
    const e = events[i];
    const path = e.path ?? 'root';
    const root = path === 'root';
    laneOf(view, path).push({ seq: e.seq, type: e.type, nodeId: e.nodeId ?? null, label: laneLabel(e) });
    switch (e.type) {
      case 'run.started':
        if (root) view.request = e.request ?? null;
        break;
      case 'node.started': {
        const rounds = view.spans.get(e.nodeId) ?? [];
        const round = {
          round: rounds.filter((r) => r.path === path).length + 1,
          path,
          spanId: e.spanId,
          step: e.step,
          input: e.request?.input ?? null,
          metadata: e.request?.metadata ?? null,
          output: null,
          result: null,
          delta: null,
          durationMs: null,
          status: 'running',
          startedAt: e.at,
          events: [],
        };
        rounds.push(round);
        view.spans.set(e.nodeId, rounds);
        openSpans.set(e.spanId, round);
        view.active.add(`${path}|${e.nodeId}`);
        if (root) {
          view.activeNodes.add(e.nodeId);
          view.visits.set(e.nodeId, (view.visits.get(e.nodeId) ?? 0) + 1);
        }
        break;
      }
      case 'node.completed':
      case 'node.failed':
      case 'node.cancelled': {
        const round = openSpans.get(e.spanId) ?? lastRound(view, e.nodeId, path);
        if (round) {
          round.status = e.type === 'node.completed' ? 'completed' : e.type === 'node.failed' ? 'failed' : 'cancelled';
          if (e.type === 'node.completed') {
            round.result = e.result ?? null;
            round.output = e.result?.outputText ?? null;
            round.delta = e.delta ?? null;
            round.durationMs = e.durationMs ?? null;
          }
          if (e.error) round.error = e.error;
        } else if (e.type === 'node.completed') {
          // A human node's reply completes a node that started in an earlier leg.
          const rounds = view.spans.get(e.nodeId) ?? [];
          rounds.push({ round: rounds.length + 1, path, spanId: e.spanId, step: e.step, input: null, metadata: null, output: e.result?.outputText ?? null, result: e.result ?? null, delta: e.delta ?? null, durationMs: e.durationMs ?? null, status: 'completed', events: [] });
          view.spans.set(e.nodeId, rounds);
        }
        view.active.delete(`${path}|${e.nodeId}`);
        if (root) view.activeNodes.delete(e.nodeId);
        if (root && view.waiting?.nodeId === e.nodeId) view.waiting = null;
        if (e.type === 'node.failed' && root) {
          view.error = e.error ?? null;
          view.failedNodes.add(e.nodeId);
        }
        break;
      }
      case 'edge.traversed':
        if (root) {
          const key = edgeKey(e.from, e.to);
          view.traversed.set(key, (view.traversed.get(key) ?? 0) + 1);
          view.lastEdge = key;
        }
        break;
      case 'run.waiting':
        if (root) {
          view.status = 'waiting';
          view.waiting = { nodeId: e.nodeId, reason: e.reason };
          const rounds = view.spans.get(e.nodeId);
          const round = rounds?.[rounds.length - 1];
          if (round && round.status === 'running') round.status = 'waiting';
        }
        break;
      case 'run.resumed':
        if (root) view.status = 'running';
        break;
      case 'route.failed':
        if (root) {
          view.error = e.error ?? null;
          if (e.nodeId) view.failedNodes.add(e.nodeId);
        }
        break;
      case 'route.unmatched': {
        // A router's answer its route map did not have: its group was skipped. Kept on the round it routed from.
        const unmatched = { group: e.group ?? 0, answer: e.answer ?? '', routeKeys: e.routeKeys ?? [], path };
        const round = lastRound(view, e.nodeId, path);
        if (round) (round.unmatched ??= []).push(unmatched);
        view.unmatched.push({ ...unmatched, nodeId: e.nodeId });
        break;
      }
      case 'run.completed':
        if (root && e.run) {
          view.status = e.run.status;
          if (FINISHED.has(e.run.status)) {
            // A failed run has no answer: its last output is not one (the error says what happened).
            view.answer = e.run.status === 'failed' ? null : (e.run.outputText ?? null);
            view.waiting = null;
            view.activeNodes.clear();
            view.active.clear();
          }
          if (e.run.error) {
            view.error = e.run.error;
            if (e.run.status === 'failed' && e.run.error.nodeId) view.failedNodes.add(e.run.error.nodeId);
          }
        }
        break;
      case 'run.cancelled':
        view.status = 'cancelled';
        view.waiting = null;
        view.activeNodes.clear();
        break;
      default: {
        // Events a node emitted (tool calls, model usage…) belong to the span of that node.
        const round = openSpans.get(e.spanId) ?? lastRound(view, e.nodeId, path);
        round?.events.push(e);
      }
    }
  }
  return view;
}

function laneOf(view, path) {
  let lane = view.lanes.get(path);
  if (!lane) view.lanes.set(path, (lane = []));
  return lane;
}

function lastRound(view, nodeId, path) {
  const rounds = view.spans.get(nodeId) ?? [];
  for (let i = rounds.length - 1; i >= 0; i--) if (rounds[i].path === path) return rounds[i];
  return undefined;
}

function laneLabel(e) {
  switch (e.type) {
    case 'node.started':
      return `▶ ${e.nodeId}`;
    case 'node.completed':
      return `✓ ${e.nodeId} ${e.durationMs ?? 0} ms`;
    case 'node.failed':
      return `✗ ${e.nodeId}`;
    case 'edge.traversed':
      return `${e.from} → ${e.to === '__end__' ? 'END' : e.to}${e.routeKey ? ` [${e.routeKey}]` : ''}`;
    case 'run.waiting':
      return `waits at ${e.nodeId}`;
    case 'route.unmatched':
      return `⚠ ${e.nodeId}: "${e.answer}" not in route map (${(e.routeKeys ?? []).join(', ')})`;
    case 'run.completed':
      return `■ ${e.run?.status ?? ''}`;
    default:
      return e.nodeId ? `${e.type} · ${e.nodeId}` : e.type;
  }
}
