import type { AgentResult } from '../graph/AgentNode.js';
import { SwitchboardError, serializeError } from '../errors/SwitchboardError.js';
import type { RunStore, StepRecord } from '../persistence/RunStore.js';
import { StepFailedError } from './StepFailedError.js';
import type { StepCall, StepRunner } from './StepRunner.js';

/** The store methods a checkpointing runner needs (every built-in store has them). */
export type StepRecordStore = Required<Pick<RunStore, 'putStepRecord' | 'listStepRecords' | 'deleteStepRecords'>>;

/** Checks that `store` keeps step records; throws a `store_config` error naming what is missing otherwise. */
export function stepRecordStore(store: RunStore, where: string): StepRecordStore {
  const missing = (['putStepRecord', 'listStepRecords', 'deleteStepRecords'] as const).filter((m) => typeof store?.[m] !== 'function');
  if (missing.length > 0) {
    throw new SwitchboardError(`${where}: the store cannot keep step records (it lacks ${missing.join(', ')}); use SqliteRunStore, PostgresRunStore or MemoryRunStore`, { code: 'store_config' });
  }
  return store as StepRecordStore;
}

/** Runs whose step records one runner keeps in memory at most (the store keeps them all). */
const KEPT_RUNS = 1_000;

/** The typed error for a run whose id holds step records of another graph (`other`, and one of its records when known). */
function recordsConflict(call: StepCall, other: string, record?: StepRecord): SwitchboardError {
  const which = record === undefined ? '' : ` (step ${record.key}, ${record.status})`;
  return new SwitchboardError(
    `run id "${call.runId}" holds step records of graph "${other}"${which}; this run is of graph "${call.graph}", and would take those steps' outputs as its own: give it another runId`,
    { code: 'step_records_conflict', fault: 'user' },
  );
}

/**
 * A step runner that records every step in `store` as RUNNING, then COMPLETED with its output and
 * its shared-state writes, or FAILED with its error. A run started again with the same `runId`
 * reuses each COMPLETED step (its output and writes, without executing it) and runs the rest; a
 * FAILED step is not retried by itself — it fails again with `step_failed` until it is reset with
 * `CheckpointManager.resetFailedSteps(runId)`. Records carry the graph's name: a run id that holds
 * records of another graph fails the run at its first step (`step_records_conflict`), before any
 * step runs or any record is written.
 *
 * @example
 * const runner = checkpointingStepRunner(store);
 * await graph.run(input, { runId: 'order-42', stepRunner: runner }); // step 3 fails (an outage)
 * await new CheckpointManager(store).resetFailedSteps('order-42');
 * await graph.run(input, { runId: 'order-42', stepRunner: runner }); // steps 1-2 reused, 3 runs again
 */
export function checkpointingStepRunner(store: RunStore, options: { now?: () => number } = {}): StepRunner {
  const steps = stepRecordStore(store, 'checkpointingStepRunner()');
  const now = options.now ?? Date.now;
  // The records of a run are read once per run (per runner), then kept in step as they are written,
  // for the last KEPT_RUNS runs: a runner that lives as long as its process would otherwise keep
  // every output of every run it ran. A run forgotten and run again is read again from the store.
  const known = new Map<string, Promise<Map<string, StepRecord>>>();
  // A run id names one run of one graph: the graph its records belong to, once this runner knows it.
  const graphs = new Map<string, string>();
  const recordsOf = (call: StepCall) => {
    const runId = call.runId;
    const owner = graphs.get(runId);
    if (owner !== undefined && owner !== call.graph) return Promise.reject(recordsConflict(call, owner));
    let records = known.get(runId);
    if (records === undefined) {
      records = steps.listStepRecords(runId).then((list) => {
        // Another graph's records are not this run's steps.
        const other = list.find((r) => r.graph !== undefined && r.graph !== call.graph);
        if (other !== undefined) throw recordsConflict(call, other.graph!, other);
        graphs.set(runId, call.graph);
        return new Map(list.map((r) => [r.key, r]));
      });
      known.set(runId, records);
      if (known.size > KEPT_RUNS) {
        const oldest = known.keys().next().value!;
        known.delete(oldest);
        graphs.delete(oldest);
      }
      // A failed read is not kept: the next step reads again.
      records.catch(() => known.delete(runId));
    }
    return records;
  };
  // The COMPLETED records this runner wrote hold the very objects the step returned and wrote,
  // which its run's caller can change after the fact; the store holds what was recorded.
  const written = new WeakSet<StepRecord>();
  const write = async (records: Map<string, StepRecord>, record: StepRecord) => {
    await steps.putStepRecord(record);
    records.set(record.key, record);
    if (record.status === 'COMPLETED') written.add(record);
  };
  return {
    name: 'checkpointing',
    async run(call: StepCall, execute: () => Promise<AgentResult | null>): Promise<AgentResult | null> {
      const records = await recordsOf(call);
      // Two graphs' first steps under one id at once share one read: the graph it was read for owns them.
      const owner = graphs.get(call.runId);
      if (owner !== undefined && owner !== call.graph) throw recordsConflict(call, owner);
      let found = records.get(call.key);
      if (found !== undefined && (found.status !== 'COMPLETED' || written.has(found))) {
        // Kept from an earlier run with this id: resetFailedSteps (or `switchboard retry`) may have
        // forgotten it in the store since, and a step this runner recorded holds live objects, so
        // the store decides, not this runner's memory.
        found = (await steps.listStepRecords(call.runId)).find((r) => r.key === call.key);
        if (found === undefined) records.delete(call.key);
        else records.set(call.key, found);
      }
      if (found?.status === 'COMPLETED') {
        // A copy for each run that reuses it: what one run's caller changes is not the next run's.
        const reused = structuredClone({ output: found.output ?? null, writes: found.writes });
        call.replay(reused.writes);
        return reused.output as AgentResult | null;
      }
      if (found?.status === 'FAILED') {
        throw new StepFailedError(
          `step ${call.key} of run ${call.runId} failed before (${found.error?.message ?? 'no message'}); failed steps are not retried by themselves: reset them with CheckpointManager.resetFailedSteps("${call.runId}") or \`switchboard retry ${call.runId}\``,
          call.runId,
          call.key,
        );
      }
      const attempts = (found?.attempts ?? 0) + 1;
      // Each record is one literal, in the key order a stored record keeps: on Node 20 an object
      // begun with a spread takes every key added after it on a slow path (about 6 µs for six
      // keys, twice a step).
      const record = (status: StepRecord['status'], output: AgentResult | null, writes: StepRecord['writes'], error: StepRecord['error']): StepRecord => ({
        runId: call.runId,
        graph: call.graph,
        key: call.key,
        nodeId: call.nodeId,
        step: call.step,
        attempts,
        status,
        output,
        writes,
        error,
        updatedAt: now(),
      });
      await write(records, record('RUNNING', null, null, null));
      let output: AgentResult | null;
      try {
        output = await execute();
      } catch (error) {
        await write(records, record('FAILED', null, null, serializeError(error)));
        throw error;
      }
      await write(records, record('COMPLETED', output, call.writes(), null));
      return output;
    },
  };
}
