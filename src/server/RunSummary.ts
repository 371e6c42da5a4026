import type { RunRecord } from '../persistence/RunStore.js';
import { readPath } from '../graph/PathLog.js';
import { redactForOutput } from '../trace/redact.js';

/** A stored run as the run list shows it: status, where it stands, what it answered or waits for. */
export interface RunSummary {
  runId: string;
  graph: string;
  status: RunRecord['status'];
  path: string[];
  steps: number;
  waitReason: string | null;
  outputText: string | null;
  error: RunRecord['error'];
  lastSeq: number;
  createdAt: number;
  updatedAt: number;
  /** The input the run started with (images and secrets redacted). */
  input: string | null;
}

/** A stored run in full: the summary plus the current request, shared state and waiting node. */
export interface RunDetail extends RunSummary {
  request: unknown;
  state: Record<string, unknown>;
  waiting: { nodeId: string; reason: string; since: number } | null;
  /** True while a leg of the run executes in this server. */
  live: boolean;
}

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

/** The list form of a stored run (secrets and images redacted). */
export function runSummary(record: RunRecord, firstInput?: unknown): RunSummary {
  const context = contextOf(record);
  const summary: RunSummary = {
    runId: record.runId,
    graph: record.graphName,
    status: record.status,
    path: readPath(context.path),
    steps: typeof context.steps === 'number' ? context.steps : 0,
    waitReason: record.waitReason,
    outputText: record.outputText,
    error: record.error,
    lastSeq: record.lastSeq,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
    input: inputOf(context, firstInput),
  };
  return redactForOutput(summary) as RunSummary;
}

/** The full form of a stored run (secrets and images redacted). */
export function runDetail(record: RunRecord, live: boolean, firstInput?: unknown): RunDetail {
  const context = contextOf(record);
  return {
    ...runSummary(record, firstInput),
    request: redactForOutput(context.request ?? null),
    state: redactForOutput(context.state ?? {}) as Record<string, unknown>,
    waiting: context.waiting ?? null,
    live,
  };
}
