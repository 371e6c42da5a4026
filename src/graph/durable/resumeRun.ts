import { createActor } from 'xstate';
import { FINISHED_STATUSES, SNAPSHOT_SCHEMA_VERSION, type RunRecord, type RunStore } from '../../persistence/RunStore.js';
import { RunStateError } from '../../errors/RunStateError.js';
import { specOf, type GraphMachine } from '../compileMachine.js';
import type { GraphMachineContext, HumanReplyEvent } from '../GraphMachineContext.js';
import { graphHash } from '../graphHash.js';
import { RunRuntime } from '../RunRuntime.js';
import { createWithRuntime } from '../runtimeOf.js';
import { guardClock } from '../guardClock.js';
import { inspectOption, systemClock } from '../RunOptions.js';
import { describeValue } from '../describeValue.js';
import { checkOptionKeys, checkRunOptions } from '../checkRunOptions.js';
import { GraphDefinitionError } from '../../errors/GraphDefinitionError.js';
import type { RunnableGraph } from '../RunnableGraph.js';
import type { WorkflowRun } from '../WorkflowRun.js';
import { DEFAULT_LEASE_MS, type ResumeOptions } from './DurableOptions.js';
import { durableLeg } from './durableLeg.js';
import { memoryLeg } from './memoryLeg.js';
import { defaultMemoryStore } from '../../persistence/MemoryRunStore.js';
import { defaultOwner } from './runDurable.js';
import { storeJournal } from './storeJournal.js';
import { assertJson } from '../assertJson.js';
import { waitingHuman } from '../waitingHuman.js';
import { describeThrown } from '../../errors/SwitchboardError.js';
import { newSpanId } from '../../trace/TraceContext.js';
import { withDirectNode } from './persistedSnapshot.js';
import { forkReplayOf } from '../../history/forkReplay.js';

/** The step a stored run waits at (its human node's). */
const waitingStep = (record: RunRecord) => (record.snapshot as { context?: GraphMachineContext } | null)?.context?.steps ?? 0;

/** What resumes a run: a human reply (`{ reply }` or the `human.reply` event), or nothing to continue an interrupted run. */
export type ResumeEvent = { reply: unknown } | HumanReplyEvent;

/** Loads a stored run and checks that `machine` is the graph it was stored by. */
export async function loadRun(store: RunStore, machine: GraphMachine, runId: string): Promise<RunRecord> {
  const record = await store.getRun(runId);
  if (record === null) {
    throw new RunStateError(`run not found: ${runId}; list stored runs with \`switchboard runs\``, { code: 'run_not_found', runId });
  }
  const spec = specOf(machine);
  if (record.graphName !== spec.name || record.graphHash !== graphHash(spec)) {
    throw new RunStateError(
      `run ${runId} was stored by graph "${record.graphName}" (shape ${record.graphHash}) but is being resumed with graph "${spec.name}" (shape ${graphHash(spec)}); ` +
        'resume it with the graph version that started it, or cancel it',
      { code: 'graph_changed', runId },
    );
  }
  if (record.schemaVersion !== SNAPSHOT_SCHEMA_VERSION) {
    throw new RunStateError(`run ${runId} was stored with snapshot schema ${record.schemaVersion}; this version reads schema ${SNAPSHOT_SCHEMA_VERSION}`, {
      code: 'snapshot_version',
      runId,
    });
  }
  return record;
}

/** True when a stored run waits for its coordinator's specialists on the run queue (it goes on without a reply). */
export function waitsForSpecialists(record: Pick<RunRecord, 'snapshot'>): boolean {
  return (record.snapshot as { context?: GraphMachineContext } | null)?.context?.waiting?.queued !== undefined;
}

/**
 * The reply as an event, checked against the human node the stored run waits at (through any
 * coordinator whose specialist waits): text, or JSON matching the node's `reply` schema.
 */
export function toReplyEvent(runId: string, event: ResumeEvent, machine: GraphMachine, record: RunRecord): HumanReplyEvent {
  const reply = (event as { reply?: unknown } | null)?.reply;
  if (record.status === 'waiting' && waitsForSpecialists(record)) {
    throw new RunStateError(`run ${runId} waits for its specialists on the run queue, not for a reply; a worker continues it once they have ended`, {
      code: 'run_not_waiting',
      runId,
    });
  }
  const refuse = (problem: string) => new RunStateError(`resume(${runId}): ${problem}`, { code: 'invalid_reply', runId });
  if (reply === undefined) throw refuse('give the reply as { reply }: text, or JSON for a human node declared with a reply schema');
  try {
    assertJson(reply, 'reply');
  } catch (error) {
    throw refuse(describeThrown(error));
  }
  const human = record.status === 'waiting' ? waitingHuman(machine, record.snapshot) : null;
  if (human === null) {
    if (typeof reply !== 'string') throw refuse(`the reply must be text; received ${reply === null ? 'null' : typeof reply}`);
  } else {
    const checked = human.node.checkReply(reply);
    const where = human.path === 'root' ? '' : ` in ${human.path}`;
    if (!checked.ok) throw refuse(`the reply does not fit human node "${human.nodeId}"${where}: ${checked.problem}`);
  }
  return { type: 'human.reply', reply };
}

/**
 * Continues a stored run from its latest snapshot, in this or any other process. With a reply it
 * resumes a `waiting` run (the reply lands in the shared state and routing continues from the
 * human node); without one it continues an `interrupted` run, re-running the node that was in
 * flight, or takes the first leg of a `queued` one (see `RunQueue`). The run is claimed by compare-and-set on its version: of two concurrent resumes exactly
 * one wins, and the refused call changes nothing. Without `options.store`, it resumes a run started
 * without a store, whose wait this process holds in {@link defaultMemoryStore}; that leg runs in
 * memory as the first one did.
 *
 * @example
 * const run = await resumeRun(graph, runId, { reply: 'Approved: refund 599 CNY' }, { store });
 */
export async function resumeRun(
  graph: RunnableGraph | GraphMachine,
  runId: string,
  event: ResumeEvent | undefined,
  options: Omit<ResumeOptions, 'store'> & { store?: RunStore } = {},
): Promise<WorkflowRun> {
  if (typeof graph !== 'object' || graph === null) {
    throw new GraphDefinitionError(`resumeRun: pass the graph (or its machine) that started the run; received ${describeValue(graph)}`);
  }
  if (typeof runId !== 'string' || runId === '') throw new GraphDefinitionError(`resumeRun: runId must be a non-empty string; received ${describeValue(runId)}`);
  if (event !== undefined && (typeof event !== 'object' || event === null)) {
    throw new RunStateError(`resume(${runId}): pass { reply } (text, or JSON for a node with a reply schema) or nothing; received ${describeValue(event)}`, { code: 'invalid_reply', runId });
  }
  checkRunOptions(options, 'ResumeOptions');
  checkOptionKeys(options, 'resume');
  const machine = 'toMachine' in graph ? graph.toMachine() : graph;
  // Without a store, the run is one that was started without one: its wait is held in memory.
  const inMemory = options.store === undefined;
  const store = options.store ?? defaultMemoryStore;
  if (inMemory && (await store.getRun(runId)) === null) {
    throw new RunStateError(
      `run not found: ${runId}; without a store, only runs this process started without a store and that wait are held (in memory); ` +
        'pass `store` to resume a stored run',
      { code: 'run_not_found', runId },
    );
  }
  const record = await loadRun(store, machine, runId);
  // A run paused at a breakpoint goes on as it is: a reply, if any, is not for anyone.
  const breakpoint = record.status === 'waiting' && (record.snapshot as { context?: GraphMachineContext } | null)?.context?.waiting?.breakpoint !== undefined;
  // A run waiting for its specialists on the queue goes on without a reply (a reply is refused).
  const specialists = record.status === 'waiting' && waitsForSpecialists(record);
  const replying = event !== undefined && !breakpoint;
  // Whether the run can take a reply at all comes before the reply's shape: a reply checked
  // against no waiting node would be refused as "not text", which a typed workflow's
  // { decision } reply to a run that already ended always is, and that names the wrong problem.
  if (FINISHED_STATUSES.has(record.status)) {
    throw new RunStateError(`run ${runId} already finished (${record.status}); there is nothing to resume`, { code: 'run_finished', runId });
  }
  if (replying && record.status !== 'waiting') {
    throw new RunStateError(`run ${runId} is ${record.status}, not waiting for a reply; it may have been resumed already`, { code: 'run_not_waiting', runId });
  }
  // A fork still replaying its parent's steps replays the rest (never executing them), and a human
  // node among them takes the reply the parent's got, as `forkRun` gives it.
  const replay = inMemory ? null : await forkReplayOf(store, machine, record);
  const replayed = replay !== null && record.status === 'waiting' && !breakpoint && !specialists ? replay.replyAt(waitingStep(record)) : null;
  if (replayed !== null && replying) {
    throw new RunStateError(
      `run ${runId} is a fork of run ${replay!.link.runId} still replaying its steps; its human node takes the reply the parent's got at step ${waitingStep(record)}: resume it without a reply`,
      { code: 'fork_unsupported', runId },
    );
  }
  const reply = replying ? toReplyEvent(runId, event, machine, record) : replayed !== null ? toReplyEvent(runId, replayed, machine, record) : undefined;
  if (reply === undefined && record.status !== 'interrupted' && record.status !== 'queued' && !breakpoint && !specialists) {
    const hint = record.status === 'waiting' ? 'it waits for a human: resume it with a reply' : 'recover() marks runs whose owner died as interrupted';
    throw new RunStateError(`run ${runId} is ${record.status}; only interrupted (or queued) runs continue without a reply (${hint})`, { code: 'run_not_waiting', runId });
  }
  // A queued run's first leg starts here: nothing was run before, so there is no resumption to report.
  const firstLeg = record.status === 'queued';
  const clock = options.clock ?? systemClock;
  // Only for the claim: the run's own clock (which reports a failure) is the runtime's.
  const claimClock = guardClock(clock, () => {});
  const owner = options.owner ?? defaultOwner();
  const leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
  const version = await store.updateRun(runId, record.version, { status: 'running', owner, leaseExpiresAt: claimClock.now() + leaseMs });
  const claimed = version === null ? null : await store.getRun(runId);
  if (claimed === null) {
    throw new RunStateError(`run ${runId} was changed by another process while resuming (version ${record.version} is stale); nothing was changed`, {
      code: 'run_conflict',
      runId,
      retryable: false,
    });
  }
  // Events may have been stored after the last snapshot (a crash between the two never happens in
  // one transaction, but a leg that was fenced may have written up to its last commit).
  const lastSeq = Math.max(claimed.lastSeq, ...(await store.listEvents(runId, { afterSeq: claimed.lastSeq })).map((e) => e.seq));
  const runtime = new RunRuntime({
    session: options.session,
    streaming: options.streaming ?? false,
    clock,
    onEvent: options.onEvent,
    runId,
    recorders: options.recorders,
    journal: inMemory ? null : storeJournal(store),
    seq: lastSeq,
  });
  runtime.stepRunner = replay === null ? (options.stepRunner ?? null) : replay.runner(options.stepRunner ?? null);
  runtime.specialistRuns = options.specialistRuns ?? null;
  let snapshot = withDirectNode(machine, claimed.snapshot) as { context: GraphMachineContext };
  if (breakpoint) {
    // The node about to run when the run paused is in flight in the snapshot: restored, it runs, without pausing again.
    runtime.releasedStep = snapshot.context.steps;
    snapshot = { ...snapshot, context: { ...snapshot.context, waiting: null } };
  } else if (specialists) {
    // The dispatch goes on: its join, restored, looks at its specialist runs again and waits anew if any is still out.
    snapshot = { ...snapshot, context: { ...snapshot.context, status: 'running', waiting: null } };
  }
  runtime.trace = snapshot.context.trace;
  const atNodeId = snapshot.context.waiting?.nodeId ?? snapshot.context.inFlight;
  // The node the run continues at reports under a new span of this leg (its first span ended with the last leg).
  if (atNodeId !== null) runtime.nodeSpanId = newSpanId();
  const inspect = inspectOption(options.inspect, (thrown) => runtime.callbackFailed('inspect', options.inspect!, thrown));
  const actor = createWithRuntime(runtime, () => createActor(machine, { snapshot: snapshot as never, input: { request: '' }, ...inspect }));
  // A fork resumed among its replayed steps says how many are left (the step it continues at, in
  // `steps` already, included): a recorder that only sees this leg must not count them as its own.
  const replaying = replay === null ? 0 : replay.link.step - (snapshot.context.steps - (atNodeId === null ? 0 : 1));
  const resumed = {
    type: 'run.resumed' as const,
    graph: record.graphName,
    cause: breakpoint ? ('breakpoint' as const) : specialists ? ('specialists' as const) : reply === undefined ? ('recover' as const) : ('reply' as const),
    atNodeId,
    ...(replaying > 0 ? { replaying } : {}),
  };
  if (inMemory) return memoryLeg(actor, { store, record: claimed, runtime, resumed, signal: options.signal, event: reply });
  return durableLeg(actor, {
    ...(firstLeg ? {} : { resumed }),
    store,
    record: claimed,
    runtime,
    owner,
    leaseMs,
    clock: runtime.clock,
    signal: options.signal,
    event: reply,
    ...(reply === undefined ? {} : { ignoreRestoredWait: true }),
  });
}
