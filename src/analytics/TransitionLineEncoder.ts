import type { TransitionRecord } from './TransitionRecord.js';
import type { TransitionRun } from './TransitionSink.js';
import type { TransitionSink } from './TransitionSink.js';

/** A remembered piece of a line: its UTF-8 bytes. */
type Piece = Uint8Array;

/**
 * Encodes transition records as JSON lines, byte for byte the UTF-8 of what `JSON.stringify(record)`
 * gives, written straight into one reused byte buffer: what repeats from line to line (a run's
 * head with each `from` and `to`, a node type with its label and path) is encoded once and copied,
 * numbers are written digit by digit, and no string is built per line (building one and converting
 * it took most of a JSONL recorder's time). A JSONL transition recorder gives it each record field
 * by field as the record is made ({@link add}, a `TransitionSink`: no record object is made or kept)
 * and takes the lines when it writes them ({@link take}).
 */
export class TransitionLineEncoder implements TransitionSink {
  readonly #quoted = new Map<string, string>();
  #buf = new Uint8Array(64 * 1024);
  #len = 0;
  #lines = 0;

  /** How many lines were added since they were last taken. */
  get lines(): number {
    return this.#lines;
  }

  /**
   * Adds one record's line (with its newline), given field by field as a `TransitionTracker` hands
   * them over: the record `{ runId, workflow, from, to, at, durationMs, tokens, nodeType, label,
   * path, costUsd }` of `run` (its `path` and a `costUsd` left out when undefined).
   */
  add(run: TransitionRun, from: string, to: string, at: number, durationMs: number, tokens: number, costUsd: number | undefined, nodeType: string, label: string): void {
    this.#row(run.runId, run.workflow, from, to, at, durationMs, tokens, costUsd, nodeType, label, run.path);
  }

  /**
   * The lines added since the last call, as UTF-8 bytes, and starts anew. The bytes are a view of
   * the encoder's buffer: valid until the next line is added (write them before).
   */
  take(): Uint8Array {
    const lines = this.#buf.subarray(0, this.#len);
    this.#len = 0;
    this.#lines = 0;
    // A buffer grown for a huge batch is not kept for the small ones after it (the view above keeps it alive until written).
    if (this.#buf.length > MAX_KEPT_BUFFER) this.#buf = new Uint8Array(64 * 1024);
    // Run ids do not repeat across runs: the memory of them is kept small.
    if (this.#quoted.size > 4096) this.#quoted.clear();
    return lines;
  }

  /**
   * One line (with its newline) per record, after the lines added and not yet taken, as UTF-8
   * bytes (see {@link take}).
   */
  encode(records: readonly TransitionRecord[]): Uint8Array {
    for (let i = 0; i < records.length; i++) {
      const r = records[i]!;
      this.#row(r.runId, r.workflow, r.from, r.to, r.at, r.durationMs, r.tokens, r.costUsd, r.nodeType, r.label, r.path);
    }
    return this.take();
  }

  /** One record as a line of JSON, with its newline (after any lines added and not yet taken). */
  line(record: TransitionRecord): string {
    return Buffer.from(this.encode([record])).toString('utf8');
  }

  // The keys in the order the tracker's records have them, which JSON.stringify keeps.
  #row(runId: string, workflow: string, from: string, to: string, at: number, durationMs: number, tokens: number, costUsd: number | undefined, nodeType: string, label: string, path: string | undefined): void {
    this.#put(this.#lead(runId, workflow, from, to));
    this.#put(this.#at(at));
    this.#put(DURATION);
    this.#num(durationMs);
    this.#put(TOKENS);
    this.#num(tokens);
    this.#put(NODE_TYPE);
    this.#put(this.#tail(nodeType, label, path));
    // Keys a record does not have are left out, as JSON.stringify leaves out undefined ones.
    if (costUsd !== undefined) {
      this.#put(COST);
      this.#num(costUsd);
    }
    this.#put(CLOSE);
    this.#lines++;
  }

  #put(piece: Piece): void {
    const len = this.#len;
    const end = len + piece.length;
    if (end > this.#buf.length) this.#grow(end);
    const buf = this.#buf;
    // Short pieces are copied by hand: cheaper than a call to set for a few bytes.
    if (piece.length <= 16) for (let i = 0; i < piece.length; i++) buf[len + i] = piece[i]!;
    else buf.set(piece, len);
    this.#len = end;
  }

  #grow(least: number): void {
    const grown = new Uint8Array(Math.max(least, this.#buf.length * 2));
    grown.set(this.#buf.subarray(0, this.#len));
    this.#buf = grown;
  }

  /** A number as JSON writes it: finite ones as themselves, anything else as null. */
  #num(value: number): void {
    if (value >= 0 && value < SMALL.length && Number.isInteger(value)) return this.#put(SMALL[value]!);
    this.#put(bytes(Number.isFinite(value) ? String(value) : 'null'));
  }

  /**
   * The line's start up to the value of `at`, remembered per run and, in it, per `from` (with its
   * last `to`). Runs that share a recorder interleave their records: each keeps its own.
   */
  #run: RunLeads | null = null;
  readonly #runs = new Map<string, RunLeads>();
  #lead(runId: string, workflow: string, from: string, to: string): Piece {
    let run = this.#run;
    if (run === null || run.runId !== runId || run.workflow !== workflow) run = this.#runOf(runId, workflow);
    let lead = run.byFrom.get(from);
    if (lead === undefined || lead.to !== to) {
      lead = { to, bytes: bytes(`${run.head}${this.#str(from)},"to":${this.#str(to)},"at":`) };
      if (run.byFrom.size >= 256) run.byFrom.clear();
      run.byFrom.set(from, lead);
    }
    return lead.bytes;
  }

  #runOf(runId: string, workflow: string): RunLeads {
    let run = this.#runs.get(runId);
    if (run === undefined || run.workflow !== workflow) {
      if (this.#runs.size >= 256) this.#runs.clear();
      run = { runId, workflow, head: `{"runId":${this.#str(runId)},"workflow":${this.#str(workflow)},"from":`, byFrom: new Map() };
      this.#runs.set(runId, run);
    }
    this.#run = run;
    return run;
  }

  /** The value of `nodeType` up to the end of `path`, remembered per label (with its last node type and path). */
  readonly #tails = new Map<string, { nodeType: string; path: string | undefined; bytes: Piece }>();
  #tail(nodeType: string, label: string, path: string | undefined): Piece {
    let tail = this.#tails.get(label);
    if (tail === undefined || tail.nodeType !== nodeType || tail.path !== path) {
      const text = `${this.#str(nodeType)},"label":${this.#str(label)}${path === undefined ? '' : `,"path":${this.#str(path)}`}`;
      tail = { nodeType, path, bytes: bytes(text) };
      if (this.#tails.size >= 256) this.#tails.clear();
      this.#tails.set(label, tail);
    }
    return tail.bytes;
  }

  /** A time as JSON: records of a fast loop share their millisecond, so the last one is kept. */
  #lastAt = NaN;
  #lastAtBytes: Piece = bytes('null');
  #at(at: number): Piece {
    if (at !== this.#lastAt) {
      this.#lastAt = at;
      this.#lastAtBytes = bytes(Number.isFinite(at) ? String(at) : 'null');
    }
    return this.#lastAtBytes;
  }

  #str(value: string): string {
    let quoted = this.#quoted.get(value);
    if (quoted === undefined) this.#quoted.set(value, (quoted = JSON.stringify(value)));
    return quoted;
  }
}

/** What a line starts with, for one run: its head up to `from`, and the bytes up to `at` per `from` (with the `to` they were made for). */
interface RunLeads {
  runId: string;
  workflow: string;
  head: string;
  byFrom: Map<string, { to: string; bytes: Piece }>;
}

/** The largest buffer an encoder keeps between batches (1 MiB). */
const MAX_KEPT_BUFFER = 1024 * 1024;

function bytes(text: string): Piece {
  return Buffer.from(text, 'utf8');
}

const DURATION = bytes(',"durationMs":');
const TOKENS = bytes(',"tokens":');
const NODE_TYPE = bytes(',"nodeType":');
const COST = bytes(',"costUsd":');
const CLOSE = bytes('}\n');

/** The small whole numbers most durations and token counts are, as JSON, made once. */
const SMALL: Piece[] = Array.from({ length: 1024 }, (_, n) => bytes(String(n)));
