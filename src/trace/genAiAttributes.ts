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
  const name = String(event.model ?? '');
  const colon = name.indexOf(':');
  return {
    'gen_ai.operation.name': 'chat',
    'gen_ai.provider.name': (colon === -1 ? name : name.slice(0, colon)) || 'unknown',
    'gen_ai.request.model': modelName(event),
    ...agentAttribute(event),
    'switchboard.iteration': num(event.iteration) ?? 0,
    'switchboard.tools': Array.isArray(event.tools) ? event.tools.map(String) : [],
  };
}
