import type { StoredEvent } from '../persistence/RunStore.js';
import { FINISHED_STATUSES, type StoredRunStatus } from '../persistence/RunStore.js';
import type { TraceEvent } from '../trace/TraceEvent.js';
import { toEventJson } from '../json/EventJson.js';

/**
 * An event as the workbench sends it: its `seq`, its `type` and `data`, the whole event with its
 * envelope after redaction (secrets, `data:` URL images and `__` keys removed) — the same form
 * the run store keeps, so stored and live events look alike.
 *
 * The SSE message of the event ({@link frame}) is serialised and encoded at most once, on its
 * first delivery, and the same bytes are written to every subscriber the object is offered to.
 */
export class OutEvent {
  readonly seq: number;
  readonly type: string;
  readonly data: Record<string, unknown>;
  #chunk: Uint8Array | undefined;
  #frame: Uint8Array | undefined;
  #finalStatus: StoredRunStatus | null | undefined;

  constructor(seq: number, type: string, data: Record<string, unknown>) {
    this.seq = seq;
    this.type = type;
    this.data = data;
  }

  /** The sendable form of a live event (the run's recorders already redacted it, once for all of them). */
  static live(event: TraceEvent): OutEvent {
    return new OutEvent(event.seq, event.type, event);
  }

  /** The sendable form of a stored event (redacted before it was stored). */
  static stored(event: StoredEvent): OutEvent {
    return new OutEvent(event.seq, event.type, event.data);
  }

  /** `id: <seq>` and `data: <JSON on one line>`, encoded: what every subscriber of the event is sent. */
  get frame(): Uint8Array {
    if (this.#frame === undefined) {
      const chunk = this.chunk;
      this.#frame = chunk.subarray(chunk.indexOf(LF) + 1, chunk.length - 2);
    }
    return this.#frame;
  }

  /** The {@link frame} as one HTTP/1.1 chunk (`<size>\r\n<frame>\r\n`), for responses written to the socket as is. */
  get chunk(): Uint8Array {
    if (this.#chunk === undefined) {
      // The data is an `EventJson`: the event with the JSON shapes' version first.
      const text = `id: ${this.seq}\ndata: ${JSON.stringify(toEventJson(this.data))}\n\n`;
      const size = Buffer.byteLength(text);
      this.#chunk = Buffer.from(`${size.toString(16)}\r\n${text}\r\n`);
    }
    return this.#chunk;
  }

  /**
   * The final status when this event ends its run for good (`run.completed` of the top-level run
   * with a finished status, or `run.cancelled`); null otherwise — a run that waits goes on later.
   */
  get finalStatus(): StoredRunStatus | null {
    if (this.#finalStatus === undefined) this.#finalStatus = finalStatusOf(this.type, this.data);
    return this.#finalStatus;
  }
}

const LF = 0x0a;

function finalStatusOf(type: string, data: Record<string, unknown>): StoredRunStatus | null {
  if (type === 'run.cancelled') return 'cancelled';
  if (type !== 'run.completed') return null;
  const path = data.path;
  if (path !== undefined && path !== 'root') return null;
  const status = (data.run as { status?: unknown } | undefined)?.status;
  return typeof status === 'string' && FINISHED_STATUSES.has(status as StoredRunStatus) ? (status as StoredRunStatus) : null;
}
