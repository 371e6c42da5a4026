import type { AgentRequest, AgentResult } from './AgentNode.js';
import type { StateDelta } from './SharedState.js';
import type { PendingEvent } from './RunRuntime.js';

/**
 * The three events every step makes (`node.started`, `node.completed`, `edge.traversed`), as one
 * object each per run, refilled step after step. A run uses them only while nobody takes stamped
 * events (its only recorders are on the light path, see `HopListener`): a hop listener reads an
 * event during the call and keeps none, so a recorded loop allocates no event objects per step.
 */
export class ReusedEvents {
  readonly #started = { type: 'node.started', nodeId: '', step: 0, request: null as AgentRequest | null };
  readonly #completed = { type: 'node.completed', nodeId: '', step: 0, result: null as AgentResult | null, durationMs: 0, delta: null as StateDelta | null };
  readonly #edge = { type: 'edge.traversed', from: '', to: '', kind: '', index: 0 };
  readonly #routed = { type: 'edge.traversed', from: '', to: '', kind: '', index: 0, routeKey: '' };

  started(nodeId: string, step: number, request: AgentRequest): PendingEvent {
    const event = this.#started;
    event.nodeId = nodeId;
    event.step = step;
    event.request = request;
    return event as PendingEvent;
  }

  completed(nodeId: string, step: number, result: AgentResult | null, durationMs: number, delta: StateDelta | null): PendingEvent {
    const event = this.#completed;
    event.nodeId = nodeId;
    event.step = step;
    event.result = result;
    event.durationMs = durationMs;
    event.delta = delta;
    return event as PendingEvent;
  }

  edge(from: string, to: string, kind: string, index: number, routeKey: string | undefined): PendingEvent {
    if (routeKey === undefined) {
      const event = this.#edge;
      event.from = from;
      event.to = to;
      event.kind = kind;
      event.index = index;
      return event as PendingEvent;
    }
    const event = this.#routed;
    event.from = from;
    event.to = to;
    event.kind = kind;
    event.index = index;
    event.routeKey = routeKey;
    return event as PendingEvent;
  }
}
