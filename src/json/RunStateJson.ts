import { z } from 'zod';
import { StoredRunStatus } from '../persistence/RunStore.js';
import type { RunStateAt } from '../history/stateAt.js';
import { redactForOutput } from '../trace/redact.js';
import { JSON_SCHEMA_VERSION } from './jsonSchemaVersion.js';

/**
 * A stored run as it stood after one step (`state <runId> --at <step> --json`,
 * `GET /api/runs/:id/state?at=<step>`): the step, the node that ran and the next one, its result,
 * the request the next node gets and the whole shared state (redacted).
 */
export const RunStateJson = z.object({
  schemaVersion: z.literal(JSON_SCHEMA_VERSION),
  runId: z.string(),
  graph: z.string(),
  status: StoredRunStatus.describe("The run's status now, not at the step"),
  step: z.number().int().nonnegative().describe('0 is before the first node; n is after the n-th node completed'),
  lastStep: z.number().int().nonnegative().describe('The last step the run has completed so far'),
  nodeId: z.string().nullable().describe('The node that ran at this step (null at step 0)'),
  nextNodeId: z.string().nullable().describe('The node that ran next, when the run got that far'),
  result: z.unknown().describe("The node's result (null at step 0)"),
  request: z.unknown().describe('The request the next node gets'),
  state: z.record(z.string(), z.unknown()).describe('The whole shared state after the step, secrets and image bytes removed'),
  at: z.number().describe('When the step completed, ms since the epoch'),
  parentRunId: z.string().nullable().describe('For a fork: the run it was forked from'),
  forkedAt: z.number().int().nullable().describe('For a fork: the step of the parent it was forked at'),
});
/** A stored run as it stood after one step. */
export type RunStateJson = z.infer<typeof RunStateJson>;

/** The {@link RunStateJson} of a run's state at a step (secrets and images redacted). */
export function toRunStateJson(at: RunStateAt): RunStateJson {
  return redactForOutput({
    schemaVersion: JSON_SCHEMA_VERSION,
    runId: at.runId,
    graph: at.graph,
    status: at.status,
    step: at.step,
    lastStep: at.lastStep,
    nodeId: at.nodeId,
    nextNodeId: at.nextNodeId,
    result: at.result,
    request: at.request,
    state: at.state,
    at: at.at,
    parentRunId: at.forkOf?.runId ?? null,
    forkedAt: at.forkOf?.step ?? null,
  }) as RunStateJson;
}
