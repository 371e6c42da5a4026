import type { GraphMachineContext } from '../graph/GraphMachineContext.js';
import type { GraphMachine } from '../graph/compileMachine.js';
import { PersonReply } from './personRouter.js';
import type { HeldChild } from './runSubWorkflow.js';
import { forkKey } from './workflowKeys.js';

/**
 * What a fork holds in the run's state while its branches run: the context at the fork, the
 * outputs and early ends so far, the branches whose sub-workflow waits for a person (their held
 * snapshots, by branch index) and the reply taken for one of them.
 */
export interface ForkHeld {
  at: Record<string, unknown>;
  outputs: Record<string, unknown>;
  ends?: Record<string, { value: unknown; end: 'aborted' | 'completed' | 'failed' | 'max-steps'; message?: string }>;
  waits?: Record<string, HeldChild>;
  reply?: { index: number; reply: unknown };
}

/** The fork's held record in a machine context's state (undefined outside the fork). */
export function forkHeld(state: Record<string, unknown> | undefined, forkId: string): ForkHeld | undefined {
  return state?.[forkKey(forkId)] as ForkHeld | undefined;
}

/** The branch a waiting fork asks about first: the lowest index that waits (null when none does). */
export function firstWaiting(held: ForkHeld | undefined): number | null {
  const indexes = Object.keys(held?.waits ?? {}).map(Number).sort((a, b) => a - b);
  return indexes[0] ?? null;
}

/** True when region `index` has nothing to do on (re-)entry: it finished, or it waits and the reply is for another branch. */
export function branchSettled(held: ForkHeld | undefined, index: number): boolean {
  if (held === undefined) return false;
  if (Object.hasOwn(held.outputs, String(index))) return true;
  return held.waits?.[index] !== undefined && held.reply?.index !== index;
}

/** How branch `index` continues: its held snapshot and the reply taken for it, or undefined (it runs from the start). */
export function branchResume(held: ForkHeld | undefined, index: number): { held: HeldChild; reply: unknown } | undefined {
  const waiting = held?.waits?.[index];
  return waiting !== undefined && held?.reply?.index === index ? { held: waiting, reply: held.reply.reply } : undefined;
}

/** Why the fork waits: the first waiting branch's sub-workflow and its reason (and how many wait after it). */
export function forkWaitReason(forkId: string, branchIds: readonly string[], held: ForkHeld): string {
  const first = firstWaiting(held)!;
  const more = Object.keys(held.waits ?? {}).length - 1;
  const after = more > 0 ? ` (${more} more branch${more === 1 ? '' : 'es'} wait${more === 1 ? 's' : ''}, asked in order after it)` : '';
  return `branch "${branchIds[first] ?? first}" of ${forkId} waits: ${held.waits![first]!.reason}${after}`;
}

/** A reply a fork's wait takes: what a gate takes (`PASS`, `FAIL: why`, `{ decision, text? }`), parsed. */
export function parseForkReply(reply: unknown): { ok: true; value: unknown } | { ok: false } {
  const parsed = PersonReply.safeParse(reply);
  return parsed.success ? { ok: true, value: parsed.data } : { ok: false };
}

/**
 * The child a waiting fork's first waiting branch waits in: that branch's workflow machine and held
 * snapshot (read from the parent's persisted `snapshot`), so a resume finds the gate a reply is for.
 */
export function forkWaitingChild(snapshot: unknown, forkId: string, machineOf: (index: number) => GraphMachine | null): { machine: object; snapshot: unknown } | null {
  const held = forkHeld((snapshot as { context?: GraphMachineContext } | null)?.context?.state, forkId);
  const index = firstWaiting(held);
  if (index === null) return null;
  const machine = machineOf(index);
  return machine === null ? null : { machine, snapshot: held!.waits![index]!.snapshot };
}
