import { createRequire } from 'node:module';
import type { Attributes, Span, SpanKind, Tracer } from '@opentelemetry/api';
import { agentAttribute, agentSpanAttributes, mcpAttributes, modelAttributes, modelName, responseAttributes, toolAttributes, usageAttributes } from './genAiAttributes.js';
import type { TraceEvent } from './TraceEvent.js';
import type { TraceRecorder } from './TraceRecorder.js';
import { withFields } from '../graph/withFields.js';

type OpenTelemetryApi = typeof import('@opentelemetry/api');
let loadedApi: OpenTelemetryApi | undefined;
/**
 * The OpenTelemetry API (a CommonJS package of some 40 modules), required when the first recorder
 * is made, so a process that records no spans never loads it. It is the same module instance an
 * `import '@opentelemetry/api'` gives, and the API keeps its registrations on the global object anyway.
 */
const openTelemetryApi = (): OpenTelemetryApi => (loadedApi ??= createRequire(import.meta.url)('@opentelemetry/api') as OpenTelemetryApi);

/** Options for {@link OpenTelemetryRecorder}. */
export interface OpenTelemetryRecorderOptions {
  /** Creates the spans (default: `trace.getTracer('switchboard')` from the globally registered provider). */
  tracer?: Tracer;
  /** Longest text kept in an attribute (inputs, outputs, errors); default 512 characters. */
  maxTextLength?: number;
}

/** A node span whose node finished; it ends when the routing step reports where the run went. */
interface Settled {
  span: Span;
  at: number;
}

/**
 * The key of a node event's span. A node event whose span is its run's own (possible only for
 * events recorded by older versions after a resume) gets a key of its own so it never replaces the
 * run span.
 */
const nodeKey = (event: TraceEvent): string => (event.spanId === event.parentSpanId ? `${event.spanId}:${String(event.nodeId)}` : event.spanId);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

/**
 * Turns a run's events into OpenTelemetry spans, named and attributed after the GenAI semantic
 * conventions: one per run leg (`invoke_workflow <graph>`, with `gen_ai.workflow.name`), per node
 * execution (`node <id>`), per agent invocation inside a node (`invoke_agent <agent>`, from its
 * first model request to its `final` event, with provider, model and token totals), per model call
 * (`chat <model>`: model, token usage, finish reason, response model and id), per tool call
 * (`execute_tool <name>`: `gen_ai.tool.name`, `gen_ai.tool.call.id`, `gen_ai.tool.type`), per MCP
 * request (`tools/call <tool>`, a client span with `mcp.method.name`, `mcp.protocol.version`,
 * `jsonrpc.request.id`, `network.transport`) and per subagent handoff (`invoke_agent <subagent>`).
 * Parents follow the envelope: node spans are children of their run's span; an agent's model,
 * tool and handoff spans are children of its `invoke_agent` span (of the node span for tools a
 * node runs itself); an MCP span is a child of the tool call in flight; a specialist's run span is
 * a child of the node span that started it. Span times are the events' `at`; the Switchboard ids
 * are kept as `switchboard.*` attributes (OpenTelemetry makes its own). Works live (in
 * `RunOptions.recorders`) or on stored events replayed later.
 *
 * @example
 * const provider = new NodeTracerProvider({ spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())] });
 * await graph.run('hi', { recorders: [new OpenTelemetryRecorder({ tracer: provider.getTracer('switchboard') })] });
 */
export class OpenTelemetryRecorder implements TraceRecorder {
  readonly #api: OpenTelemetryApi;
  readonly #tracer: Tracer;
  readonly #max: number;
  /** Open run and node spans by Switchboard span id. */
  readonly #spans = new Map<string, Span>();
  /** Node spans waiting for their routing event, by Switchboard span id. */
  readonly #settled = new Map<string, Settled>();
  /** Open agent, model, tool and MCP call spans, by `<node span>|<key>`. */
  readonly #calls = new Map<string, Span>();
  /** Keys (in {@link #calls}) of the tool calls in flight, by node span: an MCP request belongs to the last. */
  readonly #openTools = new Map<string, string[]>();
  /** The span of the node that started last in each run leg, by run span id. */
  readonly #lastNode = new Map<string, string>();
  /** Which open span ids belong to which run leg, to close them when it ends. */
  readonly #byRun = new Map<string, Set<string>>();

  constructor(options: OpenTelemetryRecorderOptions = {}) {
    this.#api = openTelemetryApi();
    this.#tracer = options.tracer ?? this.#api.trace.getTracer('switchboard');
    this.#max = options.maxTextLength ?? 512;
  }

  record(event: TraceEvent): void {
    switch (event.type) {
      case 'run.started':
      case 'run.resumed':
        return this.#startRun(event);
      case 'node.started':
        return void this.#nodeSpan(event);
      case 'node.completed':
        return this.#nodeCompleted(event);
      case 'node.failed':
      case 'route.failed':
      case 'node.cancelled':
        return this.#nodeEnded(event);
      case 'edge.traversed':
        return this.#routed(event);
      case 'run.waiting':
        return this.#waiting(event);
      case 'run.completed':
        return this.#endRun(event);
      case 'model.request':
        this.#agentSpan(event);
        return this.#startCall(event, `model|${String(event.agent)}|${String(event.iteration)}`, `chat ${modelName(event)}`, this.#api.SpanKind.CLIENT, modelAttributes(event));
      case 'model.response':
        return this.#modelResponse(event);
      case 'final':
        return this.#agentFinished(event);
      case 'tool.call':
        this.#startCall(event, `tool|${String(event.callId)}`, `execute_tool ${String(event.name)}`, this.#api.SpanKind.INTERNAL, toolAttributes(event));
        this.#openToolsOf(event).push(`tool|${String(event.callId)}`);
        return;
      case 'tool.result':
        return this.#toolResult(event);
      case 'mcp.request':
        return this.#mcpRequest(event);
      case 'mcp.call':
        return this.#mcpCall(event);
      case 'handoff.started':
        return this.#startCall(event, `handoff|${String(event.handoffId)}`, `invoke_agent ${String(event.subagent)}`, this.#api.SpanKind.INTERNAL, {
          'gen_ai.operation.name': 'invoke_agent',
          'gen_ai.agent.name': String(event.subagent),
          'switchboard.handoff.tool': String(event.tool),
          'switchboard.handoff.depth': num(event.depth) ?? 0,
        });
      case 'handoff.completed':
        return this.#handoffCompleted(event);
      default:
        return;
    }
  }

  #text(value: unknown): string | undefined {
    const text = typeof value === 'string' ? value : value === undefined || value === null ? undefined : JSON.stringify(value);
    return text === undefined || text.length <= this.#max ? text : `${text.slice(0, this.#max - 1)}…`;
  }

  /**
   * The event's ids as span attributes: a new object each call, which the caller adds its own keys
   * to. Keys are set, not spread in: on Node 20 an object begun with a spread takes every key added
   * after it on a slow path, about a microsecond a span here (bench/spreadBuilds.bench.ts, otelReplay).
   */
  #ids(event: TraceEvent): Attributes {
    const ids: Attributes = {
      'switchboard.run_id': event.runId,
      'switchboard.trace_id': event.traceId,
      'switchboard.span_id': event.spanId,
      'switchboard.path': event.path,
    };
    if (event.parentSpanId !== null) ids['switchboard.parent_span_id'] = event.parentSpanId;
    return ids;
  }

  #start(name: string, parentId: string | null, at: number, attributes: Attributes, kind: SpanKind = this.#api.SpanKind.INTERNAL): Span {
    return this.#startUnder(name, parentId === null ? undefined : this.#spans.get(parentId), at, attributes, kind);
  }

  #startUnder(name: string, parent: Span | undefined, at: number, attributes: Attributes, kind: SpanKind = this.#api.SpanKind.INTERNAL): Span {
    const context = parent === undefined ? this.#api.ROOT_CONTEXT : this.#api.trace.setSpan(this.#api.ROOT_CONTEXT, parent);
    return this.#tracer.startSpan(name, { kind, attributes, startTime: new Date(at), root: parent === undefined }, context);
  }

  #track(event: TraceEvent, spanId: string, span: Span): void {
    this.#spans.set(spanId, span);
    const runSpan = event.type.startsWith('run.') ? event.spanId : (event.parentSpanId ?? event.spanId);
    let set = this.#byRun.get(runSpan);
    if (set === undefined) this.#byRun.set(runSpan, (set = new Set()));
    set.add(spanId);
  }

  #startRun(event: TraceEvent): void {
    const graph = str(event.graph);
    const attributes = this.#ids(event);
    if (graph) attributes['switchboard.graph'] = graph;
    if (event.type === 'run.resumed') {
      attributes['switchboard.resume_cause'] = String(event.cause);
      if (typeof event.atNodeId === 'string') attributes['switchboard.resumed_at'] = event.atNodeId;
    }
    this.#spans.get(event.spanId)?.end(new Date(event.at));
    // GenAI semantic conventions: a workflow run is `invoke_workflow <name>`.
    attributes['gen_ai.operation.name'] = 'invoke_workflow';
    if (graph) attributes['gen_ai.workflow.name'] = graph;
    const name = `invoke_workflow ${graph ?? event.path}`;
    this.#track(event, event.spanId, this.#start(name, event.parentSpanId, event.at, attributes));
  }

  /** The open span of a node event, started here if the run continued mid-node (after a resume). */
  #nodeSpan(event: TraceEvent): Span {
    const id = nodeKey(event);
    const open = this.#spans.get(id);
    if (open !== undefined) return open;
    const step = num(event.step);
    const attributes = this.#ids(event);
    attributes['switchboard.node_id'] = String(event.nodeId);
    if (step !== undefined) attributes['switchboard.step'] = step;
    if (event.type !== 'node.started') attributes['switchboard.continued'] = true;
    else attributes['switchboard.input'] = this.#text((event.request as { input?: unknown } | undefined)?.input) ?? '';
    const span = this.#start(`node ${String(event.nodeId)}`, event.parentSpanId, event.at, attributes);
    this.#track(event, id, span);
    if (event.parentSpanId !== null) this.#lastNode.set(event.parentSpanId, id);
    return span;
  }

  /** A run event: the run waits at the node that started last. */
  #waiting(event: TraceEvent): void {
    const nodeSpan = this.#spans.get(this.#lastNode.get(event.spanId) ?? '');
    nodeSpan?.setAttributes({ 'switchboard.waiting': true, 'switchboard.reason': this.#text(event.reason) ?? '' });
    this.#spans.get(event.spanId)?.addEvent('waiting', { 'switchboard.node_id': String(event.nodeId) }, new Date(event.at));
  }

  #nodeCompleted(event: TraceEvent): void {
    const span = this.#nodeSpan(event);
    const delta = event.delta as { set?: Record<string, unknown>; deleted?: string[] } | null;
    const result = event.result as { outputText?: unknown } | null;
    span.setAttributes({
      'switchboard.duration_ms': num(event.durationMs) ?? 0,
      'switchboard.delta.set': Object.keys(delta?.set ?? {}),
      'switchboard.delta.deleted': delta?.deleted ?? [],
      ...(typeof result?.outputText === 'string' ? { 'switchboard.output': this.#text(result.outputText)! } : {}),
    });
    this.#settled.set(nodeKey(event), { span, at: event.at });
  }

  #routed(event: TraceEvent): void {
    const id = nodeKey(event);
    const settled = this.#settled.get(id);
    const span = settled?.span ?? this.#spans.get(id);
    if (span === undefined) return;
    span.setAttributes({
      'switchboard.route.to': String(event.to),
      'switchboard.route.kind': String(event.kind),
      ...(num(event.index) === undefined ? {} : { 'switchboard.route.index': num(event.index)! }),
      ...(typeof event.routeKey === 'string' ? { 'switchboard.route.key': event.routeKey } : {}),
    });
    this.#close(id, settled?.at ?? event.at);
  }

  #nodeEnded(event: TraceEvent): void {
    const span = this.#settled.get(nodeKey(event))?.span ?? this.#nodeSpan(event);
    if (event.type === 'node.cancelled') span.setAttribute('switchboard.cancelled', true);
    else {
      const error = event.error as { code?: string; message?: string } | undefined;
      span.setStatus({ code: this.#api.SpanStatusCode.ERROR, message: this.#text(error?.message) ?? event.type });
      span.setAttribute('error.type', error?.code ?? event.type);
    }
    this.#close(nodeKey(event), event.at);
  }

  /** Starts a call span under the event's agent invocation, or under its node when no agent made it. */
  #startCall(event: TraceEvent, key: string, name: string, kind: SpanKind, attributes: Attributes, parent?: Span): void {
    const node = this.#nodeSpan(event);
    const agent = typeof event.agent === 'string' ? this.#calls.get(`${nodeKey(event)}|agent|${event.agent}`) : undefined;
    const span = this.#startUnder(name, parent ?? agent ?? node, event.at, withFields(attributes, { 'switchboard.node_id': String(event.nodeId) }), kind);
    this.#calls.set(`${nodeKey(event)}|${key}`, span);
  }

  /** The open `invoke_agent` span of the event's agent in its node, started at this event if none is open. */
  #agentSpan(event: TraceEvent): Span | undefined {
    if (typeof event.agent !== 'string' || event.agent === '') return undefined;
    const key = `${nodeKey(event)}|agent|${event.agent}`;
    const open = this.#calls.get(key);
    if (open !== undefined) return open;
    const span = this.#startUnder(`invoke_agent ${event.agent}`, this.#nodeSpan(event), event.at, withFields(agentSpanAttributes(event), { 'switchboard.node_id': String(event.nodeId) }));
    this.#calls.set(key, span);
    return span;
  }

  /** An agent loop ended: its span gets the token totals and how it ended. */
  #agentFinished(event: TraceEvent): void {
    const span = this.#agentSpan(event);
    if (span === undefined) return;
    this.#calls.delete(`${nodeKey(event)}|agent|${String(event.agent)}`);
    const result = (event.result ?? {}) as { status?: string; steps?: number; usage?: unknown; error?: { code?: string; message?: string } };
    span.setAttributes({ ...usageAttributes(result.usage), 'switchboard.agent.status': result.status ?? 'unknown', ...(num(result.steps) === undefined ? {} : { 'switchboard.agent.steps': num(result.steps)! }) });
    if (result.status === 'failed' || result.status === 'max-iterations') {
      span.setStatus({ code: this.#api.SpanStatusCode.ERROR, message: this.#text(result.error?.message) ?? result.status });
      span.setAttribute('error.type', result.error?.code ?? result.status);
    }
    span.end(new Date(event.at));
  }

  #openToolsOf(event: TraceEvent): string[] {
    let open = this.#openTools.get(nodeKey(event));
    if (open === undefined) this.#openTools.set(nodeKey(event), (open = []));
    return open;
  }

  /** An MCP request leaves: a client span under the tool call in flight that makes it (or its node). */
  #mcpRequest(event: TraceEvent): void {
    const tool = this.#openToolsOf(event).at(-1);
    const parent = tool === undefined ? undefined : this.#calls.get(`${nodeKey(event)}|${tool}`);
    this.#startCall(event, `mcp|${String(event.requestKey ?? event.tool)}`, `${String(event.method ?? 'tools/call')} ${String(event.tool)}`, this.#api.SpanKind.CLIENT, mcpAttributes(event), parent);
  }

  /** An MCP request answered or failed; without its request event (older runs) the span is made here. */
  #mcpCall(event: TraceEvent): void {
    const key = `mcp|${String(event.requestKey ?? event.tool)}`;
    if (!this.#calls.has(`${nodeKey(event)}|${key}`)) this.#mcpRequest(event);
    const span = this.#takeCall(event, key)!;
    span.setAttributes(mcpAttributes(event));
    if (event.ok === false) {
      const error = (event.error ?? {}) as { code?: string; message?: string };
      span.setStatus({ code: this.#api.SpanStatusCode.ERROR, message: this.#text(error.message) ?? 'MCP request failed' });
      span.setAttribute('error.type', error.code ?? 'tool_error');
    }
    span.end(new Date(event.at));
  }

  #takeCall(event: TraceEvent, key: string): Span | undefined {
    const id = `${nodeKey(event)}|${key}`;
    const span = this.#calls.get(id);
    this.#calls.delete(id);
    return span;
  }

  #modelResponse(event: TraceEvent): void {
    const span = this.#takeCall(event, `model|${String(event.agent)}|${String(event.iteration)}`);
    if (span === undefined) return;
    const toolCalls = Array.isArray(event.toolCalls) ? event.toolCalls.length : 0;
    span.setAttributes({
      ...usageAttributes(event.usage),
      ...(typeof event.finishReason === 'string' ? { 'gen_ai.response.finish_reasons': [event.finishReason] } : {}),
      ...responseAttributes(event),
      'switchboard.tool_calls': toolCalls,
    });
    span.end(new Date(event.at));
  }

  #toolResult(event: TraceEvent): void {
    // An agent's tool reports `result`; a node running a tool itself may report `observation`.
    const result = (event.result ?? event.observation ?? {}) as { callId?: string; ok?: boolean; error?: string; code?: string };
    const key = `tool|${String(result.callId)}`;
    const open = this.#openToolsOf(event);
    if (open.includes(key)) open.splice(open.lastIndexOf(key), 1);
    const span = this.#takeCall(event, key);
    if (span === undefined) return;
    if (result.ok === false) {
      span.setStatus({ code: this.#api.SpanStatusCode.ERROR, message: this.#text(result.error) ?? 'tool failed' });
      span.setAttribute('error.type', result.code ?? 'tool_failed');
    }
    span.end(new Date(event.at));
  }

  #handoffCompleted(event: TraceEvent): void {
    const span = this.#takeCall(event, `handoff|${String(event.handoffId)}`);
    if (span === undefined) return;
    span.setAttributes({ 'switchboard.handoff.status': String(event.status), 'switchboard.handoff.attempts': num(event.attempts) ?? 0 });
    if (event.status === 'failed' || event.status === 'denied') {
      span.setStatus({ code: this.#api.SpanStatusCode.ERROR, message: this.#text(event.error) ?? String(event.status) });
    }
    span.end(new Date(event.at));
  }

  #close(spanId: string, at: number): void {
    const span = this.#settled.get(spanId)?.span ?? this.#spans.get(spanId);
    this.#settled.delete(spanId);
    this.#spans.delete(spanId);
    this.#openTools.delete(spanId);
    for (const [key, call] of this.#calls) {
      if (key.startsWith(`${spanId}|`)) {
        call.end(new Date(at));
        this.#calls.delete(key);
      }
    }
    span?.end(new Date(at));
  }

  #endRun(event: TraceEvent): void {
    const run = (event.run ?? {}) as { status?: string; steps?: number; error?: { code?: string; message?: string } };
    for (const id of this.#byRun.get(event.spanId) ?? []) {
      if (id !== event.spanId) this.#close(id, this.#settled.get(id)?.at ?? event.at);
    }
    this.#byRun.delete(event.spanId);
    this.#lastNode.delete(event.spanId);
    const span = this.#spans.get(event.spanId);
    if (span === undefined) return;
    span.setAttributes({ 'switchboard.status': run.status ?? 'unknown', ...(run.steps === undefined ? {} : { 'switchboard.steps': run.steps }) });
    if (run.status === 'failed') {
      span.setStatus({ code: this.#api.SpanStatusCode.ERROR, message: this.#text(run.error?.message) ?? 'run failed' });
      span.setAttribute('error.type', run.error?.code ?? 'failed');
    }
    this.#close(event.spanId, event.at);
  }
}
