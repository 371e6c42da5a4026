import type { Attributes } from '@opentelemetry/api';
import type { TraceEvent } from './TraceEvent.js';

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

/** The model a response event names, when the server said (`gen_ai.response.model`, `gen_ai.response.id`). */
export function responseAttributes(event: TraceEvent): Attributes {
  return {
    ...(typeof event.responseModel === 'string' ? { 'gen_ai.response.model': event.responseModel } : {}),
    ...(typeof event.responseId === 'string' ? { 'gen_ai.response.id': event.responseId } : {}),
  };
}

/** `openai:gpt-4o-mini` → `gpt-4o-mini`; `offline` stays. */
export function modelName(event: TraceEvent): string {
  const name = String(event.model ?? 'model');
  const colon = name.indexOf(':');
  return colon === -1 ? name : name.slice(colon + 1);
}

/** The GenAI agent name of an event, when it has one (never the string "undefined"). */
export function agentAttribute(event: TraceEvent): Attributes {
  return typeof event.agent === 'string' && event.agent !== '' ? { 'gen_ai.agent.name': event.agent } : {};
}

/**
 * OpenTelemetry GenAI attributes of a `model.request` event, on the current semantic conventions:
 * operation, provider (`gen_ai.provider.name`, which replaces the deprecated `gen_ai.system`),
 * requested model and agent.
 */
export function modelAttributes(event: TraceEvent): Attributes {
  return {
    'gen_ai.operation.name': 'chat',
    'gen_ai.provider.name': providerName(event),
    'gen_ai.request.model': modelName(event),
    ...agentAttribute(event),
    'switchboard.iteration': num(event.iteration) ?? 0,
    'switchboard.tools': Array.isArray(event.tools) ? event.tools.map(String) : [],
  };
}

/** `gen_ai.usage.*` of a usage object (`{ inputTokens, outputTokens }`), for the counts it has. */
export function usageAttributes(usage: unknown): Attributes {
  const u = (usage ?? {}) as { inputTokens?: unknown; outputTokens?: unknown };
  const input = num(u.inputTokens);
  const output = num(u.outputTokens);
  return { ...(input === undefined ? {} : { 'gen_ai.usage.input_tokens': input }), ...(output === undefined ? {} : { 'gen_ai.usage.output_tokens': output }) };
}

/** The provider part of a model client's name (`openai:gpt-4o` → `openai`; `offline` stays). */
function providerName(event: TraceEvent): string {
  const name = String(event.model ?? '');
  const colon = name.indexOf(':');
  return (colon === -1 ? name : name.slice(0, colon)) || 'unknown';
}

/**
 * Attributes of an `invoke_agent` span for an agent running in this process (the span is started
 * by its first event, normally its first `model.request`): operation, agent name, and the provider
 * and model when the event names them.
 */
export function agentSpanAttributes(event: TraceEvent): Attributes {
  return {
    'gen_ai.operation.name': 'invoke_agent',
    ...agentAttribute(event),
    'gen_ai.provider.name': providerName(event),
    ...(event.model === undefined ? {} : { 'gen_ai.request.model': modelName(event) }),
  };
}

/**
 * Attributes of an `execute_tool` span: the tool's name and call id, its type (`function`: code the
 * application runs) and the agent that called it, when one did.
 */
export function toolAttributes(event: TraceEvent): Attributes {
  return {
    'gen_ai.operation.name': 'execute_tool',
    'gen_ai.tool.name': String(event.name),
    ...(typeof event.callId === 'string' ? { 'gen_ai.tool.call.id': event.callId } : {}),
    'gen_ai.tool.type': 'function',
    ...agentAttribute(event),
  };
}

/**
 * Attributes of an MCP client span (the MCP conventions): the method, the tool a `tools/call`
 * runs (with `gen_ai.operation.name` `execute_tool`), the negotiated protocol version, the JSON-RPC
 * request id and the transport (`pipe` for stdio), for those the event carries.
 */
export function mcpAttributes(event: TraceEvent): Attributes {
  const method = typeof event.method === 'string' ? event.method : 'tools/call';
  const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : typeof v === 'number' ? String(v) : undefined);
  const attributes: Attributes = { 'mcp.method.name': method };
  if (method === 'tools/call') attributes['gen_ai.operation.name'] = 'execute_tool';
  if (typeof event.tool === 'string') attributes['gen_ai.tool.name'] = event.tool;
  const version = str(event.protocolVersion);
  if (version !== undefined) attributes['mcp.protocol.version'] = version;
  const requestId = str(event.requestId);
  if (requestId !== undefined) attributes['jsonrpc.request.id'] = requestId;
  const transport = str(event.transport);
  if (transport !== undefined) attributes['network.transport'] = transport;
  return attributes;
}
