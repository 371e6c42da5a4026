import type { AgentRequest, AgentResult } from '../graph/AgentNode.js';
import type { StateDelta } from '../graph/SharedState.js';
import type { ForkLink } from '../graph/WorkflowEvent.js';
import type { RunRecord, RunStore, StoredEvent } from '../persistence/RunStore.js';
import { RunStateError } from '../errors/RunStateError.js';

/** One completed step of a stored run, as its event log recorded it. */
export interface HistoryStep {
  /** 1-based, as `node.started` and `maxSteps` count. */
  step: number;
  nodeId: string;
  /** The request the node got. */
  request: AgentRequest;
  result: AgentResult | null;
  /** What the node wrote to the shared state (null: nothing). */
  delta: StateDelta | null;
  /** When it completed (epoch ms). */
  at: number;
}

/** A stored run's history: how it started and each step it completed, in order. */
export interface RunHistory {
  record: RunRecord;
  /** The request the run started with. */
  request: AgentRequest;
  /** The shared state it was seeded with (step 0). */
  initialState: Record<string, unknown>;
  /** The run it was forked from, if it is a fork. */
  forkOf: ForkLink | null;
  /** Steps 1…n, each completed; a step in flight (or waiting for a reply) is not among them. */
  steps: HistoryStep[];
}

const isRecord = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

/** True for an event of the run itself (not of one of its specialists, whose events share its log). */
const ownEvent = (e: StoredEvent, runId: string) => e.data['path'] === 'root' && (e.data['runId'] === undefined || e.data['runId'] === runId);

/**
 * Reads a stored run's history from its event log: the request and state it started with, and the
 * request, result and state writes of every step it completed. A run started again in its row (see
 * `retryRun`) counts from its last `run.started`; a step run twice (recovery re-runs the node in
 * flight) counts once, as it completed last. Throws `run_not_found` for an unknown run.
 */
export async function readRunHistory(store: RunStore, runId: string): Promise<RunHistory> {
  const record = await store.getRun(runId);
  if (record === null) {
    throw new RunStateError(`run not found: ${runId}; list stored runs with \`switchboard runs\``, { code: 'run_not_found', runId });
  }
  const events = await store.listEvents(runId);
  let request: AgentRequest = { input: null };
  let initialState: Record<string, unknown> = {};
  let forkOf: ForkLink | null = null;
  let steps: HistoryStep[] = [];
  const requests = new Map<number, AgentRequest>();
  for (const event of events) {
    if (!ownEvent(event, runId)) continue;
    const data = event.data;
    if (event.type === 'run.started') {
      request = isRecord(data['request']) ? (data['request'] as unknown as AgentRequest) : { input: null };
      initialState = isRecord(data['state']) ? data['state'] : {};
      const link = data['forkOf'];
      forkOf = isRecord(link) && typeof link['runId'] === 'string' && typeof link['step'] === 'number' ? { runId: link['runId'], step: link['step'] } : null;
      steps = [];
      requests.clear();
    } else if (event.type === 'node.started' && typeof data['step'] === 'number') {
      if (isRecord(data['request'])) requests.set(data['step'], data['request'] as unknown as AgentRequest);
    } else if (event.type === 'node.completed' && typeof data['step'] === 'number' && typeof data['nodeId'] === 'string') {
      const step = data['step'];
      // Steps complete in order; a step completed again (after a recovery) replaces the later ones.
      while (steps.length > 0 && steps[steps.length - 1]!.step >= step) steps.pop();
      steps.push({
        step,
        nodeId: data['nodeId'],
        request: requests.get(step) ?? request,
        result: isRecord(data['result']) ? (data['result'] as AgentResult) : null,
        delta: isRecord(data['delta']) ? (data['delta'] as unknown as StateDelta) : null,
        at: event.at,
      });
    }
  }
  return { record, request, initialState, forkOf, steps };
}
