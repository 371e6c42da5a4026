import type { TraceEvent } from './TraceEvent.js';
import type { HopEvent, HopListener } from './HopListener.js';
import type { EventEnvelope } from '../graph/WorkflowEvent.js';

/**
 * Something that keeps or forwards a run's events: `MemoryRecorder`, `JsonlRecorder`,
 * `OpenTelemetryRecorder`, and the run store's event log (the checkpointer of a stored run is one).
 * Pass recorders in `RunOptions.recorders` (and `ResumeOptions.recorders`); a run redacts each event
 * once and hands the same {@link TraceEvent} to every recorder, in order, including the events of
 * specialist runs it starts. Nothing is redacted or recorded when a run has no recorder.
 *
 * `record` must not throw: a recorder that throws is detached from the run (the run goes on).
 *
 * @example
 * const memory = new MemoryRecorder();
 * await graph.run('hi', { recorders: [memory, new JsonlRecorder('trace.jsonl')] });
 */
export interface TraceRecorder {
  record(event: TraceEvent): void;
  /**
   * True for a recorder that reads only the engine's own fields (ids, times, node ids, token
   * counts) and keeps none of an event's payload, such as `TransitionRecorder`: it is handed each
   * event as the run made it, neither redacted nor copied, and must not change it. The run store's
   * event log (a stored run's checkpointer) takes raw events too, and redacts what it keeps itself.
   * Default false.
   */
  readonly rawEvents?: boolean;
  /**
   * For a `rawEvents` recorder that redacts what it keeps: when the run has already redacted the
   * event for another recorder, it hands that copy here instead of the raw event to `record`, so
   * the event is redacted once. Optional.
   */
  recordRedacted?(event: TraceEvent): void;
  /**
   * For a `rawEvents` recorder that keeps an event's envelope apart from its fields (the run store's
   * event log): handed each event as the run made it, before its envelope was stamped, with the
   * envelope beside it, so no stamped copy is built for it. The trace event is `{ ...event,
   * ...envelope }` (a key both have keeps the event's place and takes the envelope's value). Neither
   * may be changed; both may be kept. When the run has already redacted the event for another
   * recorder, that redacted trace event comes third, so the event is not redacted twice. When
   * present, runs call it instead of `record` and `recordRedacted`. Optional.
   */
  recordParts?(event: HopEvent, envelope: EventEnvelope, redacted?: TraceEvent): void;
  /**
   * The light path, for a recorder that needs only a run's step transitions, such as
   * `TransitionRecorder`: runs hand each event to this listener unstamped and build no trace event
   * for the recorder (its `record` is then not called by runs). See {@link HopListener}.
   */
  readonly hops?: HopListener;
}
