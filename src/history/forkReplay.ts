import { specOf, type GraphMachine } from '../graph/compileMachine.js';
import type { GraphMachineContext } from '../graph/GraphMachineContext.js';
import { isHumanNode, type HumanNode } from '../graph/humanNode.js';
import type { StateDelta } from '../graph/SharedState.js';
import type { ForkLink } from '../graph/WorkflowEvent.js';
import { RunStateError } from '../errors/RunStateError.js';
import type { RunRecord, RunStore, StoredEvent } from '../persistence/RunStore.js';
import type { StepRunner } from '../steps/StepRunner.js';
import { readRunHistory, type RunHistory } from './readRunHistory.js';
import { replayRunner } from './replayRunner.js';

/** What a fork still has to replay of its parent's steps: see {@link forkReplayOf}. */
export interface ForkReplay {
  link: ForkLink;
  /** The step runner that replays the parent's steps up to `link.step` and runs the others through `next` (null: in this process). */
  runner(next: StepRunner | null): StepRunner;
  /** The reply the parent's human node got at `step`, when that step is one the fork replays; null otherwise. */
  replyAt(step: number): { reply: unknown } | null;
}

const isRecord = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

/** The fork link a run's first `run.started` event names, with the state edit it goes on with; null for a run that is no fork. */
export async function forkLinkOf(store: RunStore, runId: string): Promise<ForkLink | null> {
  return forkLinkIn((await store.listEvents(runId, { limit: 1 }))[0]);
}

/** The fork link of a run whose first event is `first` (see {@link forkLinkOf}). */
function forkLinkIn(first: StoredEvent | undefined): ForkLink | null {
  const link = first?.type === 'run.started' ? first.data['forkOf'] : undefined;
  if (!isRecord(link) || typeof link['runId'] !== 'string' || typeof link['step'] !== 'number') return null;
  const edit = link['edit'];
  const stored = isRecord(edit) && isRecord(edit['set']) && Array.isArray(edit['deleted']) ? (edit as unknown as StateDelta) : null;
  return { runId: link['runId'], step: link['step'], ...(stored === null ? {} : { edit: stored }) };
}

/** The reply a human node got at a step of a run's history; null when that step was no human node's or got none. */
export function recordedReply(machine: GraphMachine, history: RunHistory, step: number): { reply: unknown } | null {
  const recorded = history.steps[step - 1];
  if (recorded === undefined) return null;
  const node = specOf(machine).nodes.find((n) => n.id === recorded.nodeId)?.node;
  if (!isHumanNode(node)) return null;
  const key = (node as HumanNode).replyKey;
  if (recorded.delta !== null && key in recorded.delta.set) return { reply: recorded.delta.set[key] };
  return null;
}

/** A fork's replay of its parent's steps 1…`link.step` (see `forkRun`). */
export function forkReplay(machine: GraphMachine, forkId: string, link: ForkLink, parent: RunHistory): ForkReplay {
  const steps = parent.steps.slice(0, link.step);
  return {
    link,
    runner: (next) => replayRunner(forkId, link.runId, steps, link.edit ?? null, next),
    replyAt: (step) => (step >= 1 && step <= link.step ? recordedReply(machine, parent, step) : null),
  };
}

/**
 * The replay a stored fork still owes when it continues (a recovery, a resume, a retry): null when
 * the run is no fork, or when it is past its replayed steps (its step counter beyond `link.step`),
 * so a run that is no fork costs one read of its first event. Otherwise its parent's history is
 * read again; a parent that no longer has the forked steps (deleted, or retried since) is refused
 * with `fork_unsupported`, since the fork could only go on by executing them.
 */
export async function forkReplayOf(store: RunStore, machine: GraphMachine, record: RunRecord, options: { fromStart?: boolean; first?: StoredEvent } = {}): Promise<ForkReplay | null> {
  // A caller that has read the run's first event already (`first`) spares the store a second read.
  const link = 'first' in options ? forkLinkIn(options.first) : await forkLinkOf(store, record.runId);
  if (link === null) return null;
  const steps = (record.snapshot as { context?: Partial<GraphMachineContext> } | null)?.context?.steps ?? 0;
  if (options.fromStart !== true && steps > link.step) return null;
  const parent = await readRunHistory(store, link.runId).catch((error: unknown) => {
    if ((error as { code?: unknown }).code === 'run_not_found') return null;
    throw error;
  });
  if (parent === null || parent.steps.length < link.step) {
    throw new RunStateError(
      `run ${record.runId} is a fork of run ${link.runId} at step ${link.step}, but that run no longer has its first ${link.step} steps (deleted, or started again since); ` +
        'the fork cannot replay them without executing them again: cancel it, or fork anew',
      { code: 'fork_unsupported', runId: record.runId },
    );
  }
  return forkReplay(machine, record.runId, link, parent);
}
