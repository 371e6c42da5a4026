import type { TraceEvent } from './TraceEvent.js';
import type { TraceRecorder } from './TraceRecorder.js';

/**
 * Keeps a run's redacted events in memory, in order (for tests, replays and small tools).
 *
 * @example
 * const memory = new MemoryRecorder();
 * await graph.run('hi', { recorders: [memory] });
 * memory.ofType('node.completed').map((e) => e.nodeId);
 */
export class MemoryRecorder implements TraceRecorder {
  readonly events: TraceEvent[] = [];

  record(event: TraceEvent): void {
    this.events.push(event);
  }

  /** The events of one type, in order. */
  ofType(type: string): TraceEvent[] {
    return this.events.filter((e) => e.type === type);
  }

  /** The events of one run, in order. */
  ofRun(runId: string): TraceEvent[] {
    return this.events.filter((e) => e.runId === runId);
  }

  /** Forgets every event. */
  clear(): void {
    this.events.length = 0;
  }
}
