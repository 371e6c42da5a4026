import type { TransitionRecord } from './TransitionRecord.js';

/**
 * Encodes transition records as JSON lines, byte for byte what `JSON.stringify(record)` gives, but
 * without walking each record generically: the keys are written in the record's order and the
 * strings, which repeat from record to record (run ids, node ids, labels), are quoted once and
 * remembered. A JSONL transition recorder encodes its waiting records with it when it writes them.
 */
export class TransitionLineEncoder {
  readonly #quoted = new Map<string, string>();

  /** One line (with its newline) per record, joined. */
  encode(records: readonly TransitionRecord[]): string {
    let out = '';
    for (let i = 0; i < records.length; i++) out += this.line(records[i]!);
    // Run ids do not repeat across runs: the memory of quoted strings is kept small.
    if (this.#quoted.size > 4096) this.#quoted.clear();
    return out;
  }

  /** One record as a line of JSON, with its newline. */
  line(r: TransitionRecord): string {
    let out = `${this.#head(r.runId, r.workflow)}${this.#str(r.from)},"to":${this.#str(r.to)},"at":${this.#at(r.at)},"durationMs":${num(r.durationMs)},"tokens":${num(r.tokens)},"nodeType":${this.#str(r.nodeType)},"label":${this.#str(r.label)}`;
    // Keys a record does not have are left out, as JSON.stringify leaves out undefined ones.
    if (r.path !== undefined) out += `,"path":${this.#str(r.path)}`;
    if (r.costUsd !== undefined) out += `,"costUsd":${num(r.costUsd)}`;
    return `${out}}\n`;
  }

  /** The line's start up to the value of `from`: the same for every record of a run, so made once per run. */
  #headRunId = '';
  #headWorkflow = '';
  #headText = '';
  #head(runId: string, workflow: string): string {
    if (runId !== this.#headRunId || workflow !== this.#headWorkflow || this.#headText === '') {
      this.#headRunId = runId;
      this.#headWorkflow = workflow;
      this.#headText = `{"runId":${this.#str(runId)},"workflow":${this.#str(workflow)},"from":`;
    }
    return this.#headText;
  }

  /** A time as JSON: records of a fast loop share their millisecond, so the last one is kept. */
  #lastAt = NaN;
  #lastAtText = 'null';
  #at(at: number): string {
    if (at !== this.#lastAt) {
      this.#lastAt = at;
      this.#lastAtText = num(at);
    }
    return this.#lastAtText;
  }

  #str(value: string): string {
    let quoted = this.#quoted.get(value);
    if (quoted === undefined) this.#quoted.set(value, (quoted = JSON.stringify(value)));
    return quoted;
  }
}

/** The small whole numbers most durations and token counts are, as JSON, made once. */
const SMALL: string[] = Array.from({ length: 1024 }, (_, n) => String(n));

/** A number as JSON writes it: finite ones as themselves, anything else as null. */
function num(value: number): string {
  if (value >= 0 && value < 1024 && Number.isInteger(value)) return SMALL[value]!;
  return Number.isFinite(value) ? String(value) : 'null';
}
