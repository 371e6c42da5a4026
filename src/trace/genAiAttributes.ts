import type { Attributes } from '@opentelemetry/api';
import type { TraceEvent } from './TraceEvent.js';

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

/** `openai:gpt-4o-mini` → `gpt-4o-mini`; `offline` stays. */
export function modelName(event: TraceEvent): string {
  const name = String(event.model ?? 'model');
  const colon = name.indexOf(':');
  return colon === -1 ? name : name.slice(colon + 1);
}

/** OpenTelemetry GenAI attributes of a `model.request` event (operation, system, model, agent). */
export function modelAttributes(event: TraceEvent): Attributes {
  const name = String(event.model ?? '');
  const colon = name.indexOf(':');
  return {
    'gen_ai.operation.name': 'chat',
    'gen_ai.system': colon === -1 ? name : name.slice(0, colon),
    'gen_ai.request.model': modelName(event),
    'gen_ai.agent.name': String(event.agent),
    'switchboard.iteration': num(event.iteration) ?? 0,
    'switchboard.tools': Array.isArray(event.tools) ? event.tools.map(String) : [],
  };
}
