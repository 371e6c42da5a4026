import { GraphDefinitionError } from '../errors/GraphDefinitionError.js';
import { WorkflowExecutionError } from '../errors/WorkflowExecutionError.js';
import type { RunRuntime } from '../graph/RunRuntime.js';
import { AgentContext } from './AgentContext.js';
import type { NodeRuntime } from './compileWorkflow.js';
import { runBranch, type BranchOutcome } from './runBranch.js';
import { RUN_CHILD, SubWorkflowWaiting, type ChildResume, type HeldChild } from './runSubWorkflow.js';
import type { Step } from './Step.js';
import { WorkflowLane } from './WorkflowLane.js';

/** The run a fan-out reports its items in (absent outside a run). */
export interface FanOutRun {
  runtime: RunRuntime;
  runId: string;
  step: number;
  /** The fan-out node's abort signal, which each item's step gets. */
  signal?: AbortSignal;
}

/**
 * What a fan-out holds in the run's state while items wait for a person: the context at the fork,
 * the items (so a waiting item's step is made again by `stepFor` after a restart), the outputs and
 * early ends of the items done, and the held snapshots of the items that wait (by item index).
 */
export interface FanOutHeld {
  at: Record<string, unknown>;
  items: unknown[];
  outputs: Record<string, unknown>;
  ends?: Record<string, NonNullable<BranchOutcome['end']>>;
  waits: Record<string, HeldChild>;
}

/** How a fan-out leg ended: the context writes of the items that finished (in the order they did), then either the join's outputs or what it holds while items wait. */
export type FanOutOutcome = { changes: Record<string, unknown> } & (
  | { waiting: null; outputs: unknown[]; end: BranchOutcome['end'] }
  | { waiting: FanOutHeld }
);

/** The first item that waits (lowest index), or null. */
export function firstWaitingItem(held: Pick<FanOutHeld, 'waits'> | undefined): number | null {
  const indexes = Object.keys(held?.waits ?? {}).map(Number).sort((a, b) => a - b);
  return indexes[0] ?? null;
}

/** True for a built workflow used as a step (one that can wait and be continued). */
export function isWorkflowStep(step: Step): boolean {
  return typeof (step as { [RUN_CHILD]?: unknown })[RUN_CHILD] === 'function' && typeof (step as { toMachine?: unknown }).toMachine === 'function';
}

/** `stepFor(item, index)`, checked. */
export function stepOfItem(rt: Extract<NodeRuntime, { type: 'fan-out' }>, item: unknown, index: number): Step {
  const step = rt.stepFor(item, index);
  if (step === null || typeof step !== 'object' || typeof step.execute !== 'function') {
    throw new GraphDefinitionError(`parallel(itemsOf, stepFor): stepFor(item ${index}) returned no step; return a Step (step(name, fn))`);
  }
  return step;
}

type ItemDone = { index: number; outcome: BranchOutcome } | { index: number; wait: HeldChild };

/**
 * A dynamic fan-out: `itemsOf(ctx, input)` gives the items, `stepFor(item, index)` a step for
 * each; all run concurrently on the context as it was at the fork, each in its own trace lane
 * (`<path>/<for-each node>[n]`) and with the workflow's `onError` recoveries. The output is their
 * outputs in item order; their context writes merge in the order they finish (the last one wins a
 * conflict). An item that aborts or terminates ends the run (the first such item, in item order).
 *
 * An item whose step is a sub-workflow that waits for a person (at any depth) does not fail the
 * run: once every other item is done or waits, the leg returns what the fan-out holds
 * ({@link FanOutHeld}) and the run waits. The next leg (`resume`: the held record and the person's
 * reply) continues the first waiting item where it stopped, with that reply; the items done are not
 * run again, and the others still wait, asked in item order.
 */
export async function runFanOut(
  rt: Extract<NodeRuntime, { type: 'fan-out' }>,
  ctx: AgentContext,
  input: unknown,
  run: FanOutRun | null,
  resume?: { held: FanOutHeld; reply: unknown },
): Promise<FanOutOutcome> {
  const at = resume === undefined ? ctx : AgentContext.trusted(Object.freeze({ ...resume.held.at }));
  const items = resume === undefined ? await rt.itemsOf(ctx, input) : resume.held.items;
  if (!Array.isArray(items)) {
    throw new WorkflowExecutionError(`parallel(itemsOf, stepFor): itemsOf returned ${items === null ? 'null' : typeof items}; return an array of items`, { code: 'invalid_node_result' });
  }
  const changes: Record<string, unknown> = {};
  const runItem = async (index: number, childResume?: ChildResume): Promise<ItemDone> => {
    const item = items[index];
    const step = stepOfItem(rt, item, index);
    const lane = run === null ? null : new WorkflowLane(run.runtime, run.runId, `${rt.template}[${index + 1}]`, run.step, run.signal);
    try {
      const outcome = await runBranch(step.name, step, rt.recoveries, at, item, lane, childResume);
      Object.assign(changes, outcome.context.changesFrom(at));
      return { index, outcome };
    } catch (error) {
      if (error instanceof SubWorkflowWaiting && isWorkflowStep(step)) return { index, wait: error.held };
      throw error;
    }
  };
  let done: ItemDone[];
  let held: FanOutHeld;
  if (resume === undefined) {
    done = await Promise.all(items.map((_item, index) => runItem(index)));
    held = { at: at.toJSON(), items, outputs: {}, waits: {} };
  } else {
    const index = firstWaitingItem(resume.held);
    if (index === null) throw new WorkflowExecutionError('parallel(itemsOf, stepFor): the fan-out was continued but no item waits', { code: 'internal' });
    const { [index]: waiting, ...others } = resume.held.waits;
    done = [await runItem(index, { held: waiting!, reply: resume.reply })];
    held = { ...resume.held, waits: others, outputs: { ...resume.held.outputs } };
    if (held.ends !== undefined) held.ends = { ...held.ends };
  }
  // The maps are written in place (a copy per item made a fan-out of n items copy n²/2 entries):
  // a new held record has its own, a continued one copies the stored ones once (above). Their keys
  // are item indexes, which an object keeps in ascending order however they are written.
  for (const d of done) {
    if ('wait' in d) held.waits[d.index] = d.wait;
    else {
      held.outputs[d.index] = d.outcome.output ?? null;
      if (d.outcome.end !== null) (held.ends ??= {})[d.index] = d.outcome.end;
    }
  }
  if (Object.keys(held.waits).length > 0) return { changes, waiting: held };
  const outputs = items.map((_item, i) => held.outputs[i] ?? null);
  const end = items.map((_item, i) => held.ends?.[i]).find((e) => e !== undefined) ?? null;
  return { changes, waiting: null, outputs, end };
}

/** Why a fan-out waits: its first waiting item (number and step) and that item's reason, and how many wait after it. */
export function fanOutWaitReason(rt: Extract<NodeRuntime, { type: 'fan-out' }>, forkId: string, held: FanOutHeld): string {
  const first = firstWaitingItem(held)!;
  const more = Object.keys(held.waits).length - 1;
  let name: string;
  try {
    name = ` ("${stepOfItem(rt, held.items[first], first).name}")`;
  } catch {
    name = '';
  }
  const after = more > 0 ? ` (${more} more item${more === 1 ? '' : 's'} wait${more === 1 ? 's' : ''}, asked in item order after it)` : '';
  return `item ${first + 1}${name} of ${forkId} waits: ${held.waits[first]!.reason}${after}`;
}
