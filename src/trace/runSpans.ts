import { JSON_SCHEMA_VERSION } from '../json/jsonSchemaVersion.js';
import type { RunSpansJson, SpanJson, SpanKindJson, SpanStatusJson, TokenTotalsJson } from '../json/RunSpansJson.js';
import type { StoredRunStatus } from '../persistence/RunStore.js';

/** A bar being built: absolute times, its own tokens, its children. */
interface Bar {
  id: string;
  parentId: string | null;
  kind: SpanKindJson;
  name: string;
  nodeId: string | null;
  path: string;
  start: number;
  end: number | null;
  status: SpanStatusJson;
  tokens: TokenTotalsJson;
  startSeq: number;
  endSeq: number | null;
  children: Bar[];
}

type Event = Record<string, unknown>;

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const count = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? Math.floor(v) : 0);

/** How a run (or specialist) status reads on its bar. */
function statusOfRun(status: unknown): SpanStatusJson {
  if (status === 'completed') return 'ok';
  if (status === 'waiting') return 'waiting';
  if (status === 'cancelled') return 'cancelled';
  if (status === 'running' || status === 'queued' || status === 'interrupted') return 'running';
  return 'error';
}

/** The key of a node event's span (a node event whose span is its run's own gets a key of its own). */
const nodeKey = (e: Event): string => (e['spanId'] === e['parentSpanId'] ? `${String(e['spanId'])}:${String(e['nodeId'])}` : String(e['spanId']));

/** The lane of a specialist run id `<runId>/<kind>[n]…`: `root/<kind>[n]…`. */
const laneOf = (specialistRunId: string): string => {
  const slash = specialistRunId.indexOf('/');
  return slash < 0 ? 'root' : `root${specialistRunId.slice(slash)}`;
};

/** A model call's bar name: `<agent> · <model> #<iteration>` (the agent left out when unnamed). */
const modelName = (e: Event): string => {
  const agent = str(e['agent']);
  return `${agent ? `${agent} · ` : ''}${str(e['model']) ?? 'model'} #${String(e['iteration'] ?? 1)}`;
};

/** Builds the waterfall; one instance per run, fed events in seq order. */
class SpanBuilder {
  readonly bars = new Map<string, Bar>();
  /** Node keys that continue an earlier bar (a human node's reply reports under a new span). */
  readonly aliases = new Map<string, Bar>();
  /** The open run or specialist bar of each lane. */
  readonly lanes = new Map<string, Bar>();
  /** Tool-call bar ids in flight, per node key: an MCP request belongs to the last. */
  readonly openTools = new Map<string, string[]>();
  /** The last event time and seq seen in each lane. */
  readonly laneLast = new Map<string, { at: number; seq: number }>();
  root: Bar | null = null;
  firstAt: number | null = null;
  lastAt = 0;

  add(e: Event): void {
    const at = typeof e['at'] === 'number' ? e['at'] : this.lastAt;
    const seq = count(e['seq']) || 1;
    const path = str(e['path']) ?? 'root';
    this.firstAt ??= at;
    this.lastAt = Math.max(this.lastAt, at);
    this.laneLast.set(path, { at, seq });
    switch (e['type']) {
      case 'run.started':
      case 'run.resumed':
        return this.#runLeg(e, path, at, seq);
      case 'run.waiting': {
        const lane = this.lanes.get(path);
        const node = [...this.bars.values()].findLast((b) => b.kind === 'node' && b.path === path && b.nodeId === e['nodeId'] && b.end === null);
        if (node) this.#end(node, at, seq, 'waiting');
        if (lane) this.#end(lane, at, seq, 'waiting');
        return;
      }
      case 'run.completed': {
        const lane = this.lanes.get(path);
        if (lane) this.#end(lane, at, seq, statusOfRun((e['run'] as { status?: unknown } | undefined)?.status));
        return;
      }
      case 'node.started':
        return void this.#node(e, path, at, seq);
      case 'node.completed':
        return this.#end(this.#node(e, path, at, seq), at, seq, 'ok');
      case 'node.failed':
      case 'route.failed':
        return this.#end(this.#node(e, path, at, seq), at, seq, 'error');
      case 'node.cancelled':
        return this.#end(this.#node(e, path, at, seq), at, seq, 'cancelled');
      case 'model.request':
        this.#call(e, `model|${String(e['agent'])}|${String(e['iteration'])}`, 'model', modelName(e), at, seq);
        return;
      case 'model.response': {
        const key = `${nodeKey(e)}|model|${String(e['agent'])}|${String(e['iteration'])}`;
        const bar = this.bars.get(key) ?? this.#call(e, `model|${String(e['agent'])}|${String(e['iteration'])}`, 'model', modelName(e), at, seq);
        const usage = (e['usage'] ?? {}) as { inputTokens?: unknown; outputTokens?: unknown; totalTokens?: unknown };
        const input = count(usage.inputTokens);
        const output = count(usage.outputTokens);
        bar.tokens = { input, output, total: count(usage.totalTokens) || input + output };
        return this.#end(bar, at, seq, 'ok');
      }
      case 'tool.call': {
        const bar = this.#call(e, `tool|${String(e['callId'])}`, 'tool', str(e['name']) ?? 'tool', at, seq);
        const open = this.openTools.get(nodeKey(e)) ?? [];
        this.openTools.set(nodeKey(e), [...open, bar.id]);
        return;
      }
      case 'tool.result': {
        // An agent's tool reports `result`; a node running a tool itself reports `observation`.
        const result = (e['result'] ?? e['observation'] ?? {}) as { callId?: unknown; ok?: unknown; name?: unknown };
        const callId = String(result.callId ?? e['callId']);
        const key = `${nodeKey(e)}|tool|${callId}`;
        this.openTools.set(nodeKey(e), (this.openTools.get(nodeKey(e)) ?? []).filter((id) => id !== key));
        const bar = this.bars.get(key) ?? this.#call(e, `tool|${callId}`, 'tool', str(result.name) ?? 'tool', at, seq);
        return this.#end(bar, at, seq, result.ok === false ? 'error' : 'ok');
      }
      case 'mcp.request':
        return void this.#mcp(e, at, seq);
      case 'mcp.call': {
        const bar = this.bars.get(`${nodeKey(e)}|mcp|${String(e['requestKey'] ?? e['tool'])}`) ?? this.#mcp(e, at, seq);
        return this.#end(bar, at, seq, e['ok'] === false ? 'error' : 'ok');
      }
      case 'specialist.retrying': {
        const id = str(e['specialistRunId']);
        const lane = id === undefined ? undefined : this.lanes.get(laneOf(id));
        if (lane?.kind === 'specialist' && lane.end === null) this.#end(lane, at, seq, 'error');
        return;
      }
      case 'specialist.completed':
      case 'specialist.waiting': {
        const id = str(e['specialistRunId']);
        const lane = id === undefined ? undefined : this.lanes.get(laneOf(id));
        if (lane?.kind === 'specialist') this.#end(lane, at, seq, e['type'] === 'specialist.waiting' ? 'waiting' : statusOfRun(e['status']));
        return;
      }
      default:
        return;
    }
  }

  #bar(fields: Omit<Bar, 'end' | 'status' | 'tokens' | 'endSeq' | 'children'>): Bar {
    const bar: Bar = { ...fields, end: null, status: 'running', tokens: { input: 0, output: 0, total: 0 }, endSeq: null, children: [] };
    this.bars.set(bar.id, bar);
    const parent = bar.parentId === null ? undefined : this.bars.get(bar.parentId);
    parent?.children.push(bar);
    return bar;
  }

  #runLeg(e: Event, path: string, at: number, seq: number): void {
    const open = this.lanes.get(path);
    // A later leg of the same run or specialist (a reply, a breakpoint, a recovery): the bar runs again.
    if (open !== undefined && e['type'] === 'run.resumed') {
      open.end = null;
      open.endSeq = null;
      open.status = 'running';
      return;
    }
    // A lane started again (a retried specialist): the earlier attempt ends here.
    if (open !== undefined && open.end === null) this.#end(open, at, seq, 'error');
    const graph = str(e['graph']) ?? path;
    if (path === 'root' || this.root === null) {
      const bar = this.#bar({ id: `run:${String(e['spanId'])}`, parentId: null, kind: 'run', name: graph, nodeId: null, path, start: at, startSeq: seq });
      this.root ??= bar;
      this.lanes.set(path, bar);
      return;
    }
    // A specialist: under the node that dispatched it (its parent span), else under its parent lane.
    const dispatcher = this.bars.get(String(e['parentSpanId']));
    const parentLane = this.lanes.get(path.slice(0, path.lastIndexOf('/'))) ?? this.root;
    const lane = path.slice(path.lastIndexOf('/') + 1);
    const bar = this.#bar({ id: `specialist:${String(e['spanId'])}:${seq}`, parentId: (dispatcher ?? parentLane).id, kind: 'specialist', name: `${lane} · ${graph}`, nodeId: null, path, start: at, startSeq: seq });
    this.lanes.set(path, bar);
  }

  /** The node bar of a node event, started at this event when its start was not seen (a resumed node). */
  #node(e: Event, path: string, at: number, seq: number): Bar {
    const key = nodeKey(e);
    const held = this.bars.get(key) ?? this.aliases.get(key);
    if (held !== undefined) {
      if (held.end !== null && e['type'] !== 'node.started') return held;
      // A node continuing after a wait (a human node's reply, a recovery) runs again.
      held.end = null;
      held.endSeq = null;
      held.status = 'running';
      return held;
    }
    const nodeId = str(e['nodeId']) ?? null;
    // A human node answered in a later leg reports under a new span: it is the bar that waited.
    const waited = e['type'] === 'node.started' ? undefined : [...this.bars.values()].findLast((b) => b.kind === 'node' && b.path === path && b.nodeId === nodeId && b.status === 'waiting');
    if (waited !== undefined) {
      this.aliases.set(key, waited);
      waited.end = null;
      waited.endSeq = null;
      waited.status = 'running';
      return waited;
    }
    const parent = this.lanes.get(path) ?? this.root;
    return this.#bar({ id: key, parentId: parent?.id ?? null, kind: 'node', name: nodeId ?? 'node', nodeId, path, start: at, startSeq: seq });
  }

  #call(e: Event, key: string, kind: SpanKindJson, name: string, at: number, seq: number, parent?: Bar): Bar {
    const node = parent ?? this.#node(e, str(e['path']) ?? 'root', at, seq);
    return this.#bar({ id: `${nodeKey(e)}|${key}`, parentId: node.id, kind, name, nodeId: str(e['nodeId']) ?? null, path: node.path, start: at, startSeq: seq });
  }

  #mcp(e: Event, at: number, seq: number): Bar {
    const tool = this.openTools.get(nodeKey(e))?.at(-1);
    const parent = tool === undefined ? undefined : this.bars.get(tool);
    return this.#call(e, `mcp|${String(e['requestKey'] ?? e['tool'])}`, 'mcp', `${str(e['method']) ?? 'tools/call'} ${String(e['tool'])}`, at, seq, parent);
  }

  /** Ends a bar; its open children end with it (a waiting bar keeps them open). */
  #end(bar: Bar, at: number, seq: number, status: SpanStatusJson): void {
    bar.end = Math.max(at, bar.start);
    bar.endSeq = seq;
    bar.status = status;
    if (status === 'waiting') return;
    for (const child of bar.children) {
      if (child.end !== null) continue;
      // A specialist that never reported its end ends at its last event.
      const last = child.kind === 'specialist' ? this.laneLast.get(child.path) : undefined;
      this.#end(child, last?.at ?? at, last?.seq ?? seq, status);
    }
  }
}

function totals(bar: Bar): TokenTotalsJson {
  const sum = { ...bar.tokens };
  for (const child of bar.children) {
    const t = totals(child);
    sum.input += t.input;
    sum.output += t.output;
    sum.total += t.total;
  }
  return sum;
}

/**
 * A run's span waterfall from its events (stored or live, in seq order): one span per run, node
 * execution, model call, tool call, MCP request and specialist run, nested as they ran (a
 * specialist under the node that dispatched it, an MCP request under the tool call that made it),
 * each with its start offset, latency, status and token totals. The same events always give the
 * same spans; a span with no end event yet has `durationMs: null` and status `running`.
 *
 * @example
 * const spans = runSpans(runId, (await store.listEvents(runId)).map((e) => e.data), record.status);
 * for (const s of spans.spans) print(`${'  '.repeat(s.depth)}${s.name} ${s.durationMs} ms ${s.tokens.total} tokens`);
 */
export function runSpans(runId: string, events: readonly Record<string, unknown>[], status: StoredRunStatus | null = null): RunSpansJson {
  const builder = new SpanBuilder();
  for (const event of events) builder.add(event);
  const first = builder.firstAt ?? 0;
  const spans: SpanJson[] = [];
  const visit = (bar: Bar, depth: number) => {
    spans.push({
      id: bar.id,
      parentId: bar.parentId,
      kind: bar.kind,
      name: bar.name,
      nodeId: bar.nodeId,
      path: bar.path,
      depth,
      startMs: bar.start - first,
      durationMs: bar.end === null ? null : bar.end - bar.start,
      status: bar.status,
      tokens: totals(bar),
      startSeq: bar.startSeq,
      endSeq: bar.endSeq,
    });
    for (const child of [...bar.children].sort((a, b) => a.start - b.start || a.startSeq - b.startSeq)) visit(child, depth + 1);
  };
  const tops = [...builder.bars.values()].filter((b) => b.parentId === null || !builder.bars.has(b.parentId));
  for (const top of tops) visit(top, 0);
  const calls = (kind: SpanKindJson) => spans.filter((s) => s.kind === kind).length;
  const tokens = [...builder.bars.values()].filter((b) => b.kind === 'model').reduce((t, b) => ({ input: t.input + b.tokens.input, output: t.output + b.tokens.output, total: t.total + b.tokens.total }), { input: 0, output: 0, total: 0 });
  return {
    schemaVersion: JSON_SCHEMA_VERSION,
    runId,
    status,
    startedAt: builder.firstAt,
    durationMs: builder.firstAt === null ? 0 : builder.lastAt - first,
    tokens,
    modelCalls: calls('model'),
    toolCalls: calls('tool'),
    mcpCalls: calls('mcp'),
    spans,
  };
}
