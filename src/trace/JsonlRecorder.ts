import { appendFileSync, mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { TraceEvent } from './TraceEvent.js';
import type { TraceRecorder } from './TraceRecorder.js';

/**
 * Appends each redacted event to a file as one line of JSON (JSON Lines). Writes are synchronous
 * appends, so the file is complete up to the last event even if the process dies, and a resumed
 * run can append to the same file. An I/O error stops the recorder (the run goes on) and is kept
 * in {@link error}.
 *
 * @example
 * await graph.run('hi', { recorders: [new JsonlRecorder('traces/run.jsonl')] });
 * // each line: {"type":"node.started","runId":"…","seq":2,"traceId":"…",…}
 */
export class JsonlRecorder implements TraceRecorder {
  readonly file: string;
  /** The write error that stopped the recorder, if any. */
  error: Error | null = null;
  #ready = false;

  constructor(file: string) {
    this.file = resolve(file);
  }

  record(event: TraceEvent): void {
    if (this.error !== null) return;
    try {
      if (!this.#ready) {
        mkdirSync(dirname(this.file), { recursive: true });
        this.#ready = true;
      }
      appendFileSync(this.file, `${JSON.stringify(event)}\n`);
    } catch (error) {
      this.error = error as Error;
    }
  }
}
