import { z } from 'zod';
import { readPath } from '../graph/PathLog.js';
import { StoredRunStatus, type RunRecord } from '../persistence/RunStore.js';
import { redactForOutput } from '../trace/redact.js';
import { JSON_SCHEMA_VERSION } from './jsonSchemaVersion.js';
import { RunModel, modelOf } from './RunModel.js';

/**
 * A stored run as a list shows it (`runs --json`, `GET /api/runs`, a cancel's answer): its graph,
 * status, where it stands, what it answered, waits for or failed with, the input it started with
 * and the model it runs on.
 */
export const RunSummaryJson = z.object({
  schemaVersion: z.literal(JSON_SCHEMA_VERSION),
  runId: z.string(),
  graph: z.string(),
  status: StoredRunStatus,
  path: z.array(z.string()).describe("The nodes it ran, in order: node ids, or a typed workflow's step names"),
  steps: z.number().int().nonnegative(),
  waitReason: z.string().nullable(),
  outputText: z.string().nullable(),
  error: z.object({ name: z.string(), code: z.string(), message: z.string() }).nullable(),
  lastSeq: z.number().int().nonnegative().describe('The seq of its last stored event'),
  createdAt: z.number().describe('ms since the epoch'),
  updatedAt: z.number().describe('ms since the epoch'),
  input: z.string().nullable().describe('The input the run started with (images and secrets redacted)'),
  model: RunModel,
  parentRunId: z.string().nullable().describe('For a fork: the run it was forked from'),
  forkedAt: z.number().int().nullable().describe('For a fork: the step of the parent it was forked at'),
});
/** A stored run as a list shows it. */
export type RunSummaryJson = z.infer<typeof RunSummaryJson>;

/**
 * A stored run in full (`show --json`, `GET /api/runs/:id`): the summary plus the current request,
 * the shared state and the waiting node; `live` (HTTP only) is true while a leg runs in that server,
 * and `show --json` adds the run's `events`.
 */
export const RunDetailJson = RunSummaryJson.extend({
  request: z.unknown(),
  state: z.record(z.string(), z.unknown()),
  waiting: z.object({ nodeId: z.string(), reason: z.string(), since: z.number() }).nullable(),
  live: z.boolean().optional(),
});
/** A stored run in full. */
export type RunDetailJson = z.infer<typeof RunDetailJson>;

type SnapshotContext = {
  path?: unknown;
  steps?: number;
  request?: { input?: unknown };
  state?: Record<string, unknown>;
  waiting?: { nodeId: string; reason: string; since: number } | null;
};

const contextOf = (record: RunRecord): SnapshotContext => (record.snapshot as { context?: SnapshotContext } | null)?.context ?? {};

/** The first input of a run, from its `run.started` event when known, else its current request. */
function inputOf(context: SnapshotContext, firstInput: unknown): string | null {
  const input = firstInput ?? context.request?.input;
  if (input === undefined || input === null) return null;
  return typeof input === 'string' ? input : JSON.stringify(input);
}

/** The input of a `run.started` event's data (the first stored event of a run), if it is one. */
export function firstInputOf(data: Record<string, unknown> | undefined): unknown {
  if (data?.type !== 'run.started') return undefined;
  return (data.request as { input?: unknown } | undefined)?.input;
}

/** The parent of a fork, from its `run.started` event's data (null for a run that is no fork). */
function forkOf(data: Record<string, unknown> | undefined): { runId: string; step: number } | null {
  const link = data?.type === 'run.started' ? (data['forkOf'] as { runId?: unknown; step?: unknown } | undefined) : undefined;
  return typeof link?.runId === 'string' && typeof link.step === 'number' ? { runId: link.runId, step: link.step } : null;
}

/**
 * The {@link RunSummaryJson} of a stored run (secrets and images redacted); `first` is the data of
 * its first stored event (`run.started`: the input and, for a fork, its parent); `pathOf` names the
 * path as the run's graph does (`RunManager.pathOf`: a typed workflow's step names), else it is the
 * stored node ids.
 */
export function runSummary(record: RunRecord, first?: Record<string, unknown>, pathOf?: (record: RunRecord) => string[]): RunSummaryJson {
  const context = contextOf(record);
  const firstInput = firstInputOf(first);
  const parent = forkOf(first);
  const summary: RunSummaryJson = {
    schemaVersion: JSON_SCHEMA_VERSION,
    runId: record.runId,
    graph: record.graphName,
    status: record.status,
    path: pathOf === undefined ? readPath(context.path) : pathOf(record),
    steps: typeof context.steps === 'number' ? context.steps : 0,
    waitReason: record.waitReason,
    outputText: record.outputText,
    error: record.error,
    lastSeq: record.lastSeq,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
    input: inputOf(context, firstInput),
    model: modelOf(context.state),
    parentRunId: parent?.runId ?? null,
    forkedAt: parent?.step ?? null,
  };
  return redactForOutput(summary) as RunSummaryJson;
}

/** The {@link RunDetailJson} of a stored run (secrets and images redacted); `live` only when known; `pathOf` as for {@link runSummary}. */
export function runDetail(record: RunRecord, live: boolean | undefined, first?: Record<string, unknown>, pathOf?: (record: RunRecord) => string[]): RunDetailJson {
  const context = contextOf(record);
  return {
    ...runSummary(record, first, pathOf),
    request: redactForOutput(context.request ?? null),
    state: redactForOutput(context.state ?? {}) as Record<string, unknown>,
    waiting: context.waiting ?? null,
    ...(live === undefined ? {} : { live }),
  };
}
