import type { HopEvent } from '../../trace/HopListener.js';

const STARTED = ['type', 'nodeId', 'step', 'request'];
const COMPLETED = ['type', 'nodeId', 'step', 'result', 'durationMs', 'delta'];
const EDGE = ['type', 'from', 'to', 'kind'];
const EDGE_INDEX = ['type', 'from', 'to', 'kind', 'index'];
const EDGE_ROUTE = ['type', 'from', 'to', 'kind', 'index', 'routeKey'];

/** True when `value`'s enumerable keys are `keys`, in that order. */
function keysAre(value: object, keys: readonly string[]): boolean {
  let i = 0;
  for (const key in value) {
    if (key !== keys[i]) return false;
    i += 1;
  }
  return i === keys.length;
}

/**
 * A copy of one of the engine's step events (`node.started`, `node.completed`, `edge.traversed`)
 * with the same fields in the same order, so it encodes to the same JSON; null for any other event,
 * or one of those with other fields, another prototype or a field that cannot be read.
 */
export function stepEventBody(event: HopEvent): Record<string, unknown> | null {
  const e = event as unknown as Record<string, unknown>;
  try {
    if (Object.getPrototypeOf(e) !== Object.prototype) return null;
    switch (e.type) {
      case 'node.started':
        return keysAre(e, STARTED) ? { type: e.type, nodeId: e.nodeId, step: e.step, request: e.request } : null;
      case 'node.completed':
        return keysAre(e, COMPLETED) ? { type: e.type, nodeId: e.nodeId, step: e.step, result: e.result, durationMs: e.durationMs, delta: e.delta } : null;
      case 'edge.traversed':
        if (keysAre(e, EDGE_INDEX)) return { type: e.type, from: e.from, to: e.to, kind: e.kind, index: e.index };
        if (keysAre(e, EDGE_ROUTE)) return { type: e.type, from: e.from, to: e.to, kind: e.kind, index: e.index, routeKey: e.routeKey };
        return keysAre(e, EDGE) ? { type: e.type, from: e.from, to: e.to, kind: e.kind } : null;
      default:
        return null;
    }
  } catch {
    return null;
  }
}
