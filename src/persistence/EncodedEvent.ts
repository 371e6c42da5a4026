import type { StoredEvent } from './RunStore.js';

/**
 * A stored event whose data the engine has already encoded for the store (`json`: plain JSON, as
 * `encodeStored` writes it, nothing to redact, nothing a value table would share). The SQL and
 * memory stores write `json` as it is; `data` is parsed from it only when someone reads it (a
 * store of its own that does not know this class).
 */
export class EncodedEvent implements StoredEvent {
  readonly runId: string;
  readonly seq: number;
  readonly type: string;
  readonly at: number;
  readonly json: string;
  #data: Record<string, unknown> | null = null;

  constructor(runId: string, seq: number, type: string, at: number, json: string) {
    this.runId = runId;
    this.seq = seq;
    this.type = type;
    this.at = at;
    this.json = json;
  }

  get data(): Record<string, unknown> {
    return (this.#data ??= JSON.parse(this.json) as Record<string, unknown>);
  }

  /** The event as a plain stored event (a store that serializes whole events gets its data). */
  toJSON(): StoredEvent {
    return { runId: this.runId, seq: this.seq, type: this.type, at: this.at, data: this.data };
  }
}
