import { randomUUID } from 'node:crypto';
import { createActor } from 'xstate';
import type { RunStore } from '../../persistence/RunStore.js';
import type { AgentRequest } from '../AgentNode.js';
import { specOf, type GraphMachine } from '../compileMachine.js';
import { checkRunOptions } from '../checkRunOptions.js';
import { machineInput } from '../executeRun.js';
import { graphHash } from '../graphHash.js';
import { createWithRuntime, RunRuntime } from '../RunRuntime.js';
import { inspectOption, systemClock, toRequest, type RunOptions } from '../RunOptions.js';
import type { WorkflowEvent } from '../WorkflowEvent.js';
import type { WorkflowRun } from '../WorkflowRun.js';
import { MemoryRecorder } from '../../trace/MemoryRecorder.js';
import { DEFAULT_LEASE_MS } from './DurableOptions.js';
import { durableLeg } from './durableLeg.js';
import { newOwnerId } from './owner.js';
import { storeJournal } from './storeJournal.js';
import { assertJson } from '../assertJson.js';
import { secretValues } from '../../trace/redact.js';
import { takeSnapshot } from './takeSnapshot.js';

let processOwner: string | null = null;

/** This process's default lease owner id. */
export function defaultOwner(): string {
  processOwner ??= newOwnerId();
  return processOwner;
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
): Promise<WorkflowRun> {
  checkRunOptions(options);
  const request = toRequest(input);
  if (options.state !== undefined) assertJson(options.state, 'RunOptions.state');
  const spec = specOf(machine);
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
  });
  const inspect = inspectOption(options.inspect, (thrown) => runtime.callbackFailed('inspect', options.inspect!, thrown));
  // Events of the initial transition happen inside createActor, before the run row exists.
  const early = new MemoryRecorder();
  runtime.addRecorder(early);
  const actor = createWithRuntime(runtime, () =>
    createActor(machine, { input: machineInput(request, runId, options), ...inspect }),
  );
  const record = await store.insertRun({
    runId,
    graphName: spec.name,
    graphHash: graphHash(spec),
    status: 'running',
    owner,
    leaseExpiresAt: runtime.clock.now() + leaseMs,
    snapshot: takeSnapshot(actor, secretValues()),
  });
  runtime.removeRecorder(early);
  return durableLeg(actor, { store, record, runtime, owner, leaseMs, clock: runtime.clock, signal: options.signal, earlyEvents: early.events });
}
