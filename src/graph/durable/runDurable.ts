import { randomUUID } from 'node:crypto';
import { createActor } from 'xstate';
import type { RunPatch, RunRecord, RunStore } from '../../persistence/RunStore.js';
import { RunStateError } from '../../errors/RunStateError.js';
import type { AgentRequest } from '../AgentNode.js';
import { directMachine, isGraphModel, specOf, type GraphMachine } from '../compileMachine.js';
import { checkRunOptions } from '../checkRunOptions.js';
import { machineInput } from '../executeRun.js';
import { graphHash } from '../graphHash.js';
import { RunRuntime } from '../RunRuntime.js';
import { createWithRuntime } from '../runtimeOf.js';
import { inspectOption, systemClock, toRequest, type RunOptions } from '../RunOptions.js';
import type { WorkflowEvent } from '../WorkflowEvent.js';
import type { WorkflowRun } from '../WorkflowRun.js';
import { MAX_STORED_BYTES } from '../../persistence/storedJson.js';
import { DEFAULT_LEASE_MS } from './DurableOptions.js';
import { durableLeg } from './durableLeg.js';
import { EventIntake } from './EventIntake.js';
import { newOwnerId } from './owner.js';
import { storeJournal } from './storeJournal.js';
import { assertJson } from '../assertJson.js';
import { takeSnapshot } from './takeSnapshot.js';
import { persistedSnapshot } from './persistedSnapshot.js';
import { FORK_OF } from '../../history/forkLink.js';
import { checkBreakpoints } from '../Breakpoints.js';
import type { ForkLink } from '../WorkflowEvent.js';

let processOwner: string | null = null;

/** This process's default lease owner id. */
export function defaultOwner(): string {
  processOwner ??= newOwnerId();
  return processOwner;
}


/** Writes a restarted run's row back to `running` (compare-and-set on the version it was read at). */
async function restartRow(store: RunStore, record: RunRecord, patch: Required<Pick<RunPatch, 'status' | 'owner' | 'leaseExpiresAt' | 'snapshot' | 'error' | 'outputText' | 'waitReason'>>): Promise<RunRecord> {
  const version = await store.updateRun(record.runId, record.version, patch);
  if (version === null) {
    throw new RunStateError(`run ${record.runId} changed while it was being restarted; read it again and retry`, { code: 'run_conflict', runId: record.runId });
  }
  return { ...record, ...patch, status: 'running', version };
}

/**
 * Starts a stored run: the run row is created with the initial snapshot (so even a crash before
 * the first node finishes can be recovered), then every macrostep is checkpointed.
 */
export async function runDurable(
  machine: GraphMachine,
  input: string | AgentRequest,
  options: RunOptions & { store: RunStore },
  streaming: boolean,
  listener?: (event: WorkflowEvent) => void,
  /** A stored run that ended (see `retryRun`): it starts again from the beginning in its own row, its events numbered on. */
  restart?: RunRecord,
): Promise<WorkflowRun> {
  checkRunOptions(options);
  const request = toRequest(input);
  if (options.state !== undefined) assertJson(options.state, 'RunOptions.state');
  const spec = specOf(machine);
  const breakpoints = checkBreakpoints(options.breakpoints, spec, true);
  const runId = options.runId ?? randomUUID();
  const clock = options.clock ?? systemClock;
  const owner = options.owner ?? defaultOwner();
  const leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
  const { store } = options;
  const runtime = new RunRuntime({
    session: options.session,
    streaming,
    clock,
    onEvent: options.onEvent,
    listener,
    runId,
    recorders: options.recorders,
    journal: storeJournal(store),
    seq: restart?.lastSeq ?? 0,
  });
  runtime.stepRunner = options.stepRunner ?? null;
  runtime.forkOf = (options as { [FORK_OF]?: ForkLink })[FORK_OF] ?? null;
  const inspect = inspectOption(options.inspect, (thrown) => runtime.callbackFailed('inspect', options.inspect!, thrown));
  // Events of the initial transition happen inside createActor, before the run row exists: taken
  // and encoded as the checkpointer takes every later one, which writes them first.
  const early = new EventIntake(runId, runtime.secrets, store.maxValueBytes ?? MAX_STORED_BYTES);
  runtime.addRecorder(early);
  // The first leg runs its nodes directly, as a run in memory does (no child actor per node); its
  // checkpoints hold the node in flight as the invoking machine would (see persistedSnapshot), so
  // a resume or recovery restores them with that machine, which runs the node again. An inspected
  // run keeps the invoking machine, so the inspector shows each node's actor.
  runtime.direct = options.inspect === undefined && !isGraphModel(machine);
  const logic = runtime.direct ? directMachine(spec) : machine;
  const actor = createWithRuntime(runtime, () => createActor(logic, { input: machineInput(request, runId, options, breakpoints), ...inspect }));
  const persisted = persistedSnapshot(actor);
  const secrets = runtime.secrets;
  const snapshot = takeSnapshot(actor, secrets, persisted);
  const leaseExpiresAt = runtime.clock.now() + leaseMs;
  const record = restart === undefined
    ? await store.insertRun({ runId, graphName: spec.name, graphHash: graphHash(spec), status: 'running', owner, leaseExpiresAt, snapshot })
    : await restartRow(store, restart, { status: 'running', owner, leaseExpiresAt, snapshot, error: null, outputText: null, waitReason: null });
  runtime.removeRecorder(early);
  // The row holds this snapshot: the leg's first checkpoint is a step record against it. A fork's
  // first checkpoint is a full snapshot instead, which its first node waits for: it commits the
  // run.started naming the parent, without which a fork recovered after a crash could not know
  // that its first steps are to be replayed, not executed.
  const base = runtime.forkOf === null ? { base: { snapshot: persisted, bytes: JSON.stringify(snapshot).length } } : {};
  return durableLeg(actor, { store, record, runtime, owner, leaseMs, clock: runtime.clock, signal: options.signal, early, ...base, secrets });
}
