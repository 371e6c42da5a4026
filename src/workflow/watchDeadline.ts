import { isCompilableNode } from '../graph/CompilableNode.js';
import type { GraphMachine } from '../graph/compileMachine.js';
import type { ResumeOptions } from '../graph/durable/DurableOptions.js';
import { resumeRun } from '../graph/durable/resumeRun.js';
import { findSpec } from '../graph/machineSpecs.js';
import { defaultMemoryStore } from '../persistence/MemoryRunStore.js';
import type { RunStore } from '../persistence/RunStore.js';
import type { CompiledWorkflow } from './compileWorkflow.js';
import { deadlineKey } from './personRouter.js';
import type { HeldChild } from './runSubWorkflow.js';
import { forkKey, heldChildKey } from './workflowKeys.js';
import { firstWaitingItem, stepOfItem, type FanOutHeld } from './runFanOut.js';
import { compiledOf } from './compiledOf.js';

/** What a timed-out wait is resumed with: the store it is kept in (none: held in this process) and the listeners of the leg that armed it. */
export type DeadlineOptions = Pick<ResumeOptions, 'owner' | 'leaseMs' | 'onEvent' | 'recorders' | 'session' | 'streaming'> & { store?: RunStore };

/** setTimeout's longest delay; a longer wait is re-armed when it runs out. */
const MAX_DELAY = 2 ** 31 - 1;

/** A wait at a HumanGate with a deadline: where (node ids from the run down to the gate's wait), when, and by which clock. */
interface WaitAt {
  where: string;
  deadline: number;
  now: () => number;
}

type WaitingSnapshot = { context?: { waiting?: { nodeId?: string } | null; state?: Record<string, unknown> } } | null;

/**
 * Where a waiting snapshot of a workflow's machine waits at a HumanGate with a deadline, or null:
 * at a gate of its own, or — through a sub-workflow step's wait (`<step>:waits`, the held child's
 * snapshot), a fan-out's wait (its first waiting item) or a node whose child waits (a fork's
 * branch) — at one inside, at any depth.
 */
function waitIn(compiled: CompiledWorkflow, machine: object, snapshot: unknown, above: string): WaitAt | null {
  const context = (snapshot as WaitingSnapshot)?.context;
  const nodeId = context?.waiting?.nodeId;
  if (nodeId === undefined) return null;
  const where = above === '' ? nodeId : `${above}/${nodeId}`;
  const rt = compiled.runtime.get(nodeId);
  if (rt?.type === 'person') {
    const gate = compiled.runtime.get(rt.gate);
    const person = gate?.type === 'gate' ? gate.gate.waitsForPerson : undefined;
    const deadline = context?.state?.[deadlineKey(rt.gate)];
    if (person === undefined || person.timeoutMs === null || typeof deadline !== 'number') return null;
    return { where, deadline, now: person.now };
  }
  if (rt?.type === 'sub-wait') {
    const held = context?.state?.[heldChildKey(rt.step)] as HeldChild | undefined;
    const child = compiled.subWorkflows.get(rt.step) as { toMachine?: () => GraphMachine } | undefined;
    if (held === undefined || typeof child?.toMachine !== 'function') return null;
    return waitInMachine(child.toMachine(), held.snapshot, where);
  }
  if (rt?.type === 'fan-wait') {
    // A fan-out's wait: the first waiting item's sub-workflow, made again by stepFor from the held item.
    const held = context?.state?.[forkKey(rt.fanOut)] as FanOutHeld | undefined;
    const fan = compiled.runtime.get(rt.fanOut);
    const index = firstWaitingItem(held);
    if (held === undefined || index === null || fan?.type !== 'fan-out') return null;
    const step = stepOfItem(fan, held.items[index], index) as { toMachine?: () => GraphMachine };
    if (typeof step.toMachine !== 'function') return null;
    return waitInMachine(step.toMachine(), held.waits[index]!.snapshot, where);
  }
  const node = findSpec(machine)?.nodes.find((n) => n.id === nodeId)?.node;
  if (isCompilableNode(node) && node.waitingChild !== undefined) {
    const child = node.waitingChild(snapshot, nodeId);
    return child === null ? null : waitInMachine(child.machine, child.snapshot, where);
  }
  return null;
}

function waitInMachine(machine: object, snapshot: unknown, above: string): WaitAt | null {
  const compiled = compiledOf(machine);
  return compiled === undefined ? null : waitIn(compiled, machine, snapshot, above);
}

/** Where a stored record waits at a HumanGate with a deadline (at any depth), or null. */
function waitOf(compiled: CompiledWorkflow, machine: GraphMachine, record: { status: string; snapshot: unknown } | null): WaitAt | null {
  if (record === null || record.status !== 'waiting') return null;
  return waitIn(compiled, machine, record.snapshot, '');
}

/**
 * When the wait a stored record is at times out (epoch ms), or null: a HumanGate with a deadline
 * of its own, or one inside a sub-workflow, fork branch or fan-out item it waits for. What a run queue schedules
 * its delayed job by.
 */
export function waitDeadline(compiled: CompiledWorkflow, machine: GraphMachine, record: { status: string; snapshot: unknown } | null): number | null {
  return waitOf(compiled, machine, record)?.deadline ?? null;
}

/**
 * Arms the deadline of a run that waits at a `HumanGate` with `timeoutMs` — its own, or one inside
 * a sub-workflow or fork branch it waits for, at any depth: when it passes and the run still waits
 * at that same wait (no reply came, no other process resumed it), the run is resumed with TIMEOUT
 * (handed down to the gate) and takes `onTimeout` — in memory and, for a stored run, in the process
 * that armed it. The timer does not keep the process alive; a run whose process ended is armed
 * again by `recoverRuns` in the next one (at once when its deadline has passed), and a reply that
 * comes after the deadline takes `onTimeout` anyway.
 */
export async function watchDeadline(compiled: CompiledWorkflow, machine: GraphMachine, runId: string, options: DeadlineOptions): Promise<void> {
  const store = options.store ?? defaultMemoryStore;
  const wait = waitOf(compiled, machine, await store.getRun(runId));
  if (wait === null) return;
  const fire = async () => {
    const left = wait.deadline - wait.now();
    if (left > 0) {
      // The clock says it is not time yet (a long wait re-armed in steps, or an injected clock).
      setTimeout(() => void fire(), Math.min(left, MAX_DELAY)).unref();
      return;
    }
    const now = waitOf(compiled, machine, await store.getRun(runId));
    if (now === null || now.where !== wait.where || now.deadline !== wait.deadline) return;
    try {
      const { store: _s, ...rest } = options;
      const reply = { decision: 'TIMEOUT', text: `no decision before the deadline (${new Date(wait.deadline).toISOString()})` };
      await resumeRun(machine, runId, { reply }, options.store === undefined ? rest : { ...rest, store: options.store });
      await watchDeadline(compiled, machine, runId, options);
    } catch {
      // A reply or another process resumed the run first (the claim is compare-and-set): it moved on.
    }
  };
  setTimeout(() => void fire(), Math.min(Math.max(0, wait.deadline - wait.now()), MAX_DELAY)).unref();
}
