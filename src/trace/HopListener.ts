/**
 * An engine event as a run makes it, before its envelope is stamped: its `type`, its own fields and,
 * for a node's events, the node id. Read it; never change or keep it (the trace event, when someone
 * else listens, is built from the same object, and a run whose recorders are all on the light path
 * refills one object per kind of step event, step after step).
 */
export interface HopEvent {
  readonly type: string;
  readonly nodeId?: string | null;
  readonly [field: string]: unknown;
}

/** When an event handed over on the light path happened: read it only if you need it (a clock reading is not free). */
export interface HopTime {
  now(): number;
}

/**
 * The light path for a recorder that needs only a run's step transitions (`TransitionRecorder`,
 * `JsonlTransitionRecorder`): the engine hands it each event unstamped, with the run id and the
 * trace path beside it and the event's time on request, and builds no trace event for it (no
 * envelope, sequence number, span ids, copy or redaction). A run whose recorders all take this
 * path pays only for the few fields they read; a run with no recorder builds nothing at all.
 * `time.now()` is the run's clock read for this event (once, however often it is asked; the time
 * a stamped event of it carries, when one is built too); it is valid only during the call.
 *
 * `hop` must not throw; one that does detaches its recorder from the run, as `record` would.
 */
export interface HopListener {
  hop(event: HopEvent, runId: string, path: string, time: HopTime): void;
  /**
   * True when an `edge.traversed` event tells the listener all that the `node.started` of the node
   * it leads to would (the transition trackers): a run then does not hand over a `node.started`
   * that comes right after the edge to its node in the same run, when every listener on the light
   * path says so. Any other event in between, a resume or a run's first node, is handed over as usual.
   */
  readonly startsFromEdges?: boolean;
  /**
   * Optional, for a listener that `startsFromEdges`: a step's `node.completed` and the `edge.traversed`
   * to another node right after it, in one call with their fields as arguments, so a run builds no
   * event for either. `at` is the time of both (the clock reading that ended the node), `result` the
   * node's result (the completion's `result`), `kind` / `index` / `routeKey` the edge's fields
   * (`routeKey` undefined: the edge has none). A run calls it instead of `hop` twice when nobody
   * takes stamped events and every listener on the light path has it; an edge to the end, or one with
   * other events between it and the completion, still goes to `hop`. Same contract as `hop`.
   */
  step?(runId: string, path: string, nodeId: string, at: number, durationMs: number, result: unknown, to: string, kind: string, index: number, routeKey: string | undefined): void;
}
