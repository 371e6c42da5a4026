import { randomUUID } from 'node:crypto';
import { createActor } from 'xstate';
import type { RunRecord, RunStore } from '../../persistence/RunStore.js';
import type { AgentRequest } from '../AgentNode.js';
import { directMachine, isGraphModel, specOf, type GraphMachine } from '../compileMachine.js';
import { checkOptionKeys, checkRunOptions } from '../checkRunOptions.js';
import { machineInput } from '../executeRun.js';
import { graphHash } from '../graphHash.js';
import { RunRuntime } from '../RunRuntime.js';
import { createWithRuntime } from '../runtimeOf.js';
import { toRequest, type RunOptions } from '../RunOptions.js';
import { MemoryRecorder } from '../../trace/MemoryRecorder.js';
import { assertJson } from '../assertJson.js';
import { secretValues } from '../../trace/redact.js';
import { storeJournal } from './storeJournal.js';
import { takeSnapshot } from './takeSnapshot.js';
import type { TraceContext } from '../../trace/TraceContext.js';

/** The run options a queued run keeps: what its stored snapshot holds, so any worker can take it. */
export type QueuedRunOptions = Pick<RunOptions, 'runId' | 'state' | 'maxSteps' | 'budget'>;

/**
 * Creates the row of a run that a worker will take (status `queued`, no owner): the graph's
 * initial snapshot, as a stored run's first checkpoint holds it, and the events of the initial
 * transition (`run.started`). No node runs here; the first leg restores the snapshot, as a
 * recovery would, and runs the first node. The two writes are not one transaction: a crash
 * between them leaves a queued run without its `run.started` event, which still runs. `trace` places
 * the run in another's trace (a coordinator's specialist run on the queue).
 */
export async function insertQueuedRun(
  machine: GraphMachine,
  input: string | AgentRequest,
  options: QueuedRunOptions & { store: RunStore; trace?: TraceContext },
): Promise<RunRecord> {
  const { trace, ...checked } = options;
  checkRunOptions(checked);
  checkOptionKeys(checked, 'queued run');
  const request = toRequest(input);
  if (options.state !== undefined) assertJson(options.state, 'RunOptions.state');
  const spec = specOf(machine);
  const runId = options.runId ?? randomUUID();
  const { store } = options;
  const runtime = new RunRuntime({ streaming: false, runId, journal: storeJournal(store), seq: 0 });
  const early = new MemoryRecorder();
  runtime.addRecorder(early);
  // As a stored run's first leg: the node in flight is kept as the invoking machine would hold it.
  runtime.direct = !isGraphModel(machine);
  const logic = runtime.direct ? directMachine(spec) : machine;
  const actor = createWithRuntime(runtime, () => createActor(logic, { input: { ...machineInput(request, runId, options), ...(trace === undefined ? {} : { trace }) } }));
  const snapshot = takeSnapshot(actor, secretValues());
  const record = await store.insertRun({ runId, graphName: spec.name, graphHash: graphHash(spec), status: 'queued', owner: null, leaseExpiresAt: null, snapshot });
  const events = early.events.map((event) => ({ runId, seq: event.seq, type: event.type, at: event.at, data: event as unknown as Record<string, unknown> }));
  if (events.length === 0) return record;
  const lastSeq = events.at(-1)!.seq;
  const version = await store.updateRun(runId, record.version, { lastSeq }, events);
  return version === null ? ((await store.getRun(runId)) ?? record) : { ...record, version, lastSeq };
}
