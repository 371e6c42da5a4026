import type { Actor } from 'xstate';
import { FINISHED_STATUSES, type RunPatch, type RunRecord, type RunStore, type StoredEvent, type StoredRunStatus } from '../../persistence/RunStore.js';
import type { HopEvent } from '../../trace/HopListener.js';
import { encodeStored, MAX_STORED_BYTES } from '../../persistence/storedJson.js';
import { StoreError } from '../../persistence/StoreError.js';
import { scrubSecrets, scrubString } from '../../trace/redact.js';
import type { GraphMachine } from '../compileMachine.js';
import type { GraphMachineContext } from '../GraphMachineContext.js';
import type { TraceEvent } from '../../trace/TraceEvent.js';
import type { EventEnvelope } from '../WorkflowEvent.js';
import type { TraceRecorder } from '../../trace/TraceRecorder.js';
import { cancelledEvents, failedEvents } from './cancelledEvents.js';
import type { CheckpointerOptions } from './CheckpointerOptions.js';
import { checkStep, encodeStep } from './encodeStep.js';
import { EventIntake } from './EventIntake.js';
import { persistedSnapshot } from './persistedSnapshot.js';
import { snapshotFailure, takeSnapshot, typedSnapshotFailure } from './takeSnapshot.js';

/** Macrosteps in one commit at most (a run whose nodes never yield still commits this often): each commit has fixed work (its transaction, the pages every one rewrites) that 128 pays half as often as 64. */
export const GROUP_STEPS = 128;
/** A full snapshot is written after this many step records at the latest (bounds the work of a recovery). */
export const SNAPSHOT_EVERY_STEPS = 1024;
/** ...or once the step records since the last snapshot hold as many bytes as it did (at least this many). */
export const SNAPSHOT_MIN_LOG_BYTES = 64 * 1024;

/**
 * Writes a run's progress to its store, following the delta: each macrostep's change to the
 * persisted snapshot is checked when it happens (a value that cannot be stored fails the run at
 * that step), and once per event-loop turn or every {@link GROUP_STEPS} macrosteps (group commit)
 * one step record, what changed since the last commit, goes in one compare-and-set transaction
 * with the events emitted meanwhile. A full snapshot is written at a wait, at the end, when the first checkpoint of a
 * resumed leg is taken, and once the step records since the last one are as large as it was (or
 * {@link SNAPSHOT_EVERY_STEPS} of them): the store rebuilds the latest snapshot from the last one
 * plus the records. Nodes do not wait for step records, only for a full snapshot being written
 * ({@link barrier}); a crash loses at most the uncommitted steps, which recovery runs again (side
 * effects are journaled, and a wait is always committed before the run reports it). It is the run
 * store's event log as a {@link TraceRecorder}: it gets the same redacted events as every other
 * recorder, except live-only token deltas. While the run lives it renews its lease.
 */
export class Checkpointer implements TraceRecorder {
  readonly #store: RunStore;
  readonly #options: CheckpointerOptions;
  readonly #runId: string;
  readonly #limit: number;
  #version: number;
  readonly #intake: EventIntake;
  #chain: Promise<void> = Promise.resolve();
  #failure: unknown = null;
  /** The store's refusal that failed the run while its log can still take the events after it. */
  #failedLog: StoreError | null = null;
  #fenced = false;
  /** The run was cancelled by someone else: only events are still written. */
  #eventsOnly = false;
  #timer: NodeJS.Timeout;
  /**
   * The persisted snapshot the next commit's step record is taken against (where the last commit
   * left the run), the one of the last macrostep, and the status last written.
   */
  #base: Record<string, unknown> | null;
  #latest: Record<string, unknown> | null;
  #status: StoredRunStatus;
  /** Macrosteps that changed the snapshot since the last commit, and about how many bytes they changed. */
  #pending = 0;
  #pendingBytes = 0;
  #flushQueued = false;
  /** Bytes of the last full snapshot, and the step records (count, bytes) written since. */
  #snapshotBytes: number;
  #logSteps = 0;
  #logBytes = 0;
  /** Full snapshots queued and not yet written: nodes wait for these. */
  #snapshotsInFlight = 0;
  /**
   * The run's finished row, held until {@link close}: it is written in one transaction with the
   * events emitted after the last macrostep (`run.completed` among them), so a reader in another
   * process never sees the run finished without its last events.
   */
  #finished: RunPatch | null = null;
  /** Set by {@link close}: the writes queued from then on are the leg's last. */
  #closing = false;
  /** A lease renewal found the run cancelled and told the leg (once). */
  #cancelSeen = false;
  /**
   * The output text (redacted) of the last full snapshot queued: a cancelled run's last write stores
   * it, as the leg reports the run (its last completed node's output), the row's own being older.
   */
  #outputText: string | null | undefined = undefined;

  constructor(store: RunStore, record: RunRecord, options: CheckpointerOptions) {
    this.#store = store;
    this.#options = options;
    this.#runId = record.runId;
    this.#version = record.version;
    this.#status = record.status;
    this.#limit = store.maxValueBytes ?? MAX_STORED_BYTES;
    this.#intake = options.early ?? new EventIntake(record.runId, options.secrets, this.#limit);
    this.#intake.lastSeq = Math.max(this.#intake.lastSeq, record.lastSeq);
    this.#base = store.appendSteps === undefined ? null : (options.base?.snapshot ?? null);
    this.#latest = this.#base;
    this.#snapshotBytes = options.base?.bytes ?? 0;
    this.#timer = setInterval(() => void this.#renew(), Math.max(50, Math.floor(options.leaseMs / 3)));
    this.#timer.unref();
  }

  /** True once a write lost its compare-and-set. */
  get fenced(): boolean {
    return this.#fenced;
  }

  /** True once a write found the run cancelled while this leg held it (only its events were stored after). */
  get cancelled(): boolean {
    return this.#eventsOnly;
  }

  /** The first write error, if any (for example a state value that is not JSON). */
  get failure(): unknown {
    return this.#failure;
  }

  /**
   * Handed each event as the run made it: the checkpointer redacts what it keeps itself, and most
   * events have nothing to redact, so they are encoded once, as they are, without a redacted copy.
   */
  readonly rawEvents = true;

  /**
   * Buffers an event for the next write, in this run's log, from the event as the run made it and
   * its envelope (no stamped copy): encoded at once, as it is when nothing in it or in the envelope
   * needs redacting, with the envelope kept beside it, so the store writes it once per row of
   * events (see `encodeEventLog` and `EventBuffer`). An event the run has redacted already (for
   * another recorder) comes with that copy, which is stored without its envelope fields.
   */
  recordParts(event: HopEvent, envelope: EventEnvelope, redacted?: TraceEvent): void {
    this.#intake.recordParts(event, envelope, redacted);
  }

  /** Buffers a stamped event, redacted and (mostly) encoded, for the next write, in this run's log. */
  record(event: TraceEvent): void {
    this.#intake.record(event);
  }

  /** Buffers an event the run has already redacted (for another recorder): encoded once, not checked for redaction again. */
  recordRedacted(event: TraceEvent): void {
    this.#intake.recordRedacted(event);
  }

  /**
   * Resolves when a full snapshot queued so far is written (one microtask later, so the current
   * step's checkpoint is included); step records are not waited for.
   */
  readonly barrier = (): Promise<void> => Promise.resolve().then(() => (this.#snapshotsInFlight > 0 ? this.#chain : undefined));

  /**
   * Checkpoints the actor's current snapshot: a step record, or a full snapshot when one is due.
   * Throws synchronously, as a typed error, when the state cannot be stored: `not_json` (a Map, a
   * class instance, a cycle…) naming its key, or `value_too_large`.
   */
  checkpoint(actor: Actor<GraphMachine>): void {
    const context = actor.getSnapshot().context;
    const status: StoredRunStatus = context.status;
    // In place, with no closure: this runs at every step.
    let next: Record<string, unknown>;
    try {
      next = persistedSnapshot(actor);
    } catch (error) {
      throw snapshotFailure(actor, error);
    }
    if (this.#latest !== null && status === 'running' && !this.#eventsOnly) {
      const bytes = checkStep(actor, this.#latest, next, this.#options.secrets, this.#limit);
      this.#latest = next;
      if (bytes === null) return;
      this.#pending += 1;
      this.#pendingBytes += bytes;
      const over = this.#snapshotBytes + this.#logBytes + this.#pendingBytes > this.#limit;
      if (!over && this.#logSteps < SNAPSHOT_EVERY_STEPS && this.#logBytes < Math.max(this.#snapshotBytes, SNAPSHOT_MIN_LOG_BYTES)) {
        if (this.#pending >= GROUP_STEPS) this.#flush(actor);
        else if (!this.#flushQueued) this.#queueFlush(actor);
        return;
      }
      // The records would outgrow a snapshot (or the store's limit): one snapshot replaces them.
      if (over) encodeStored(takeSnapshot(actor, this.#options.secrets, next), 'snapshot', this.#limit);
    }
    this.#snapshot(actor, next, status);
  }

  /** Commits the steps so far at the end of this event-loop turn. */
  #queueFlush(actor: Actor<GraphMachine>): void {
    this.#flushQueued = true;
    setImmediate(() => {
      this.#flushQueued = false;
      try {
        this.#flush(actor);
      } catch (error) {
        // A step record that cannot be encoded stops the run, as a failed write does.
        this.#fail(error);
      }
    });
  }

  /**
   * Writes a run paused at a breakpoint: `persisted` (taken with the node about to run in flight,
   * so a resume runs it) with its `waiting`, the run `waiting` and released; the step records not
   * yet written are part of it.
   */
  pause(actor: Actor<GraphMachine>, persisted: Record<string, unknown>, waiting: NonNullable<GraphMachineContext['waiting']>): void {
    const secrets = this.#options.secrets;
    const context = persisted['context'] as GraphMachineContext;
    const paused = { ...persisted, context: { ...context, waiting } };
    const stored = takeSnapshot(actor, secrets, paused);
    const output = context.result?.outputText;
    this.#outputText = output === null || output === undefined ? null : scrubString(output, secrets);
    this.#status = 'waiting';
    this.#pending = 0;
    this.#pendingBytes = 0;
    if (this.#base !== null) {
      this.#base = paused;
      this.#latest = paused;
    }
    this.#logSteps = 0;
    this.#logBytes = 0;
    this.#enqueueSnapshot({ status: 'waiting', snapshot: stored, waitReason: scrubString(waiting.reason, secrets), owner: null, leaseExpiresAt: null });
  }

  /** Writes the remaining step records and events (run.completed) and stops renewing the lease. */
  async close(actor: Actor<GraphMachine>): Promise<void> {
    clearInterval(this.#timer);
    this.#closing = true;
    if (this.#finished !== null) {
      const patch = this.#finished;
      this.#finished = null;
      this.#enqueueSnapshot(patch);
    } else if (this.#pending > 0) {
      try {
        this.#flush(actor);
      } catch (error) {
        // The last steps outgrew the store: the run has failed, but its last events still go to the log.
        if (error instanceof StoreError) this.#write(this.#intake.buffer.take(), this.#intake.lastSeq, true, () => Promise.reject(error));
        else this.#fail(error);
      }
    } else if (this.#intake.buffer.length > 0 || this.#eventsOnly) this.#enqueueSnapshot({});
    await this.#chain;
  }

  /** Queues a full snapshot of `next`; the step records not yet written are part of it and dropped. */
  #snapshot(actor: Actor<GraphMachine>, next: Record<string, unknown>, status: StoredRunStatus): void {
    const context = actor.getSnapshot().context;
    const secrets = this.#options.secrets;
    const stored = takeSnapshot(actor, secrets, next);
    const live = status === 'running';
    const patch: RunPatch = typedSnapshotFailure(actor, () => {
      const text = (value: string | null | undefined) => (value === null || value === undefined ? null : scrubString(value, secrets));
      return {
        // The status is left out when it did not change, so its index entry is not written again.
        ...(status === this.#status ? {} : { status }),
        snapshot: stored,
        waitReason: text(context.waiting?.reason),
        outputText: text(context.result?.outputText),
        // Every field of the error (a node's own error can carry anything in its name or code).
        error: context.error === null ? null : scrubSecrets(context.error, secrets),
        owner: live ? this.#options.owner : null,
        leaseExpiresAt: live ? this.#options.clock.now() + this.#options.leaseMs : null,
      };
    });
    this.#outputText = patch.outputText;
    // Measured before anything changes: a value nested too deeply for JSON.stringify fails typed here.
    const bytes = this.#store.appendSteps === undefined ? 0 : typedSnapshotFailure(actor, () => JSON.stringify(stored).length);
    this.#status = status;
    this.#pending = 0;
    this.#pendingBytes = 0;
    this.#logSteps = 0;
    this.#logBytes = 0;
    this.#snapshotBytes = bytes;
    if (this.#store.appendSteps !== undefined) {
      this.#base = next;
      this.#latest = next;
    }
    // A finished run's row waits for its last events (see #finished); a later snapshot replaces it.
    this.#finished = FINISHED_STATUSES.has(status) ? patch : null;
    if (this.#finished === null) this.#enqueueSnapshot(patch);
  }

  #enqueueSnapshot(patch: RunPatch): void {
    const events = this.#intake.buffer.take();
    const lastSeq = this.#intake.lastSeq;
    this.#snapshotsInFlight += 1;
    const last = this.#closing;
    this.#write(events, lastSeq, last, async () => {
      try {
        if (this.#eventsOnly) return await this.#store.updateRun(this.#runId, this.#version, this.#eventsOnlyPatch(lastSeq, last), cancelledEvents(this.#runId, this.#options.path ?? 'root', events));
        return await this.#store.updateRun(this.#runId, this.#version, { ...patch, lastSeq }, events);
      } finally {
        this.#snapshotsInFlight -= 1;
      }
    });
  }

  /**
   * Queues a commit of the steps and events so far: one step record, from where the last commit
   * left the run to its last macrostep (the steps in between are never read back one by one).
   */
  #flush(actor: Actor<GraphMachine>): void {
    if (this.#pending === 0 || this.#base === null || this.#latest === null) return;
    const text = encodeStep(actor, this.#base, this.#latest, this.#options.secrets, this.#limit);
    this.#base = this.#latest;
    this.#pending = 0;
    this.#pendingBytes = 0;
    if (text === null) return;
    this.#logSteps += 1;
    this.#logBytes += text.length;
    const steps = [text];
    const events = this.#intake.buffer.take();
    const lastSeq = this.#intake.lastSeq;
    const last = this.#closing;
    this.#write(events, lastSeq, last, async () => {
      // A run cancelled meanwhile keeps only its events; its step records stop with it.
      if (this.#eventsOnly) return this.#store.updateRun(this.#runId, this.#version, this.#eventsOnlyPatch(lastSeq, last), cancelledEvents(this.#runId, this.#options.path ?? 'root', events));
      return (await this.#store.appendSteps!(this.#runId, this.#version, steps, events)) ? this.#version : null;
    });
  }

  /**
   * The patch of a cancelled run's write, which adds only events: the leg's last one also releases
   * the owner and lease the cancel left, which tells readers nothing more follows, and stores the
   * output the leg reports (and its run.completed holds).
   */
  #eventsOnlyPatch(lastSeq: number, last: boolean): RunPatch {
    if (!last) return { lastSeq };
    return { lastSeq, owner: null, leaseExpiresAt: null, ...(this.#outputText === undefined ? {} : { outputText: this.#outputText }) };
  }

  /** Runs `write` after the writes queued before it; a lost compare-and-set or a failure stops every later one. */
  #write(events: StoredEvent[], lastSeq: number, last: boolean, write: () => Promise<number | null>): void {
    this.#chain = this.#chain.then(async () => {
      if (this.#fenced) return;
      if (this.#failure !== null) {
        // After a write the store refused, whose events went alone, later events (run.completed) go alone too.
        if (this.#failedLog !== null && events.length > 0) await this.#storeFailedEvents(this.#failedLog, events, lastSeq);
        return;
      }
      try {
        let next = await write();
        if (next === null) {
          const current = await this.#store.getRun(this.#runId);
          // The cancel keeps a running run's owner (see `cancelRun`): only the leg it names, the one
          // executing the run then, stores its last events. A leg that another took the run from, or
          // one that had stopped (at a wait; handed back) when the run was cancelled, is fenced: the
          // log's last events are the executing leg's, or the cancel's own run.cancelled.
          if (current?.status === 'cancelled' && !this.#eventsOnly && current.owner === this.#options.owner) {
            // Cancelled by `cancelRun` (here or in another process): the run stops, but its last
            // events (node.cancelled, run.completed) still go to the log, and nothing else changes.
            this.#eventsOnly = true;
            clearInterval(this.#timer);
            this.#options.onFenced(current);
            next = await this.#store.updateRun(this.#runId, current.version, this.#eventsOnlyPatch(lastSeq, last), cancelledEvents(this.#runId, this.#options.path ?? 'root', events));
          }
          if (next === null) {
            this.#fenced = true;
            clearInterval(this.#timer);
            if (!this.#eventsOnly) this.#options.onFenced(current);
            return;
          }
        }
        this.#version = next;
      } catch (error) {
        // A snapshot or step that outgrew the store: the run fails, but its events still go to the log.
        if (error instanceof StoreError && !this.#eventsOnly) this.#failedLog = error;
        if (this.#failedLog !== null && events.length > 0) await this.#storeFailedEvents(this.#failedLog, events, lastSeq);
        this.#fail(error);
      }
    });
  }

  /** Stores `events` alone, their run.completed failed with `error` (as the row will be); if that fails too, the log ends. */
  async #storeFailedEvents(error: StoreError, events: StoredEvent[], lastSeq: number): Promise<void> {
    const next = await this.#store.updateRun(this.#runId, this.#version, { lastSeq }, failedEvents(this.#runId, this.#options.path ?? 'root', events, error)).catch(() => null);
    if (next === null) this.#failedLog = null;
    else this.#version = next;
  }

  /** Records the first failure: nothing but events is written after it (see #failedLog), and the run is told to stop. */
  #fail(error: unknown): void {
    if (this.#failure !== null) return;
    this.#failure = error;
    clearInterval(this.#timer);
    this.#options.onFailed?.(error);
  }

  async #renew(): Promise<void> {
    if (this.#fenced || this.#eventsOnly || this.#cancelSeen) return;
    const renewed = await this.#store.renewLease(this.#runId, this.#options.owner, this.#options.clock.now() + this.#options.leaseMs).catch(() => null);
    if (renewed !== false || this.#fenced || this.#eventsOnly || this.#cancelSeen) return;
    // Not renewed: if the run was cancelled (in another process) while this leg held it, stop the
    // leg now; its next write loses to the cancel and stores its last events (see #write).
    const current = await this.#store.getRun(this.#runId).catch(() => null);
    if (current?.status === 'cancelled' && current.owner === this.#options.owner && !this.#cancelSeen) {
      this.#cancelSeen = true;
      this.#options.onCancelled?.();
    }
  }
}
