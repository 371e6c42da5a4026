import type { GraphMachine } from '../graph/compileMachine.js';
import type { ResumeOptions } from '../graph/durable/DurableOptions.js';
import { resumeRun } from '../graph/durable/resumeRun.js';
import { defaultMemoryStore } from '../persistence/MemoryRunStore.js';
import type { RunStore } from '../persistence/RunStore.js';
import type { CompiledWorkflow } from './compileWorkflow.js';
import { deadlineKey } from './personRouter.js';

/** What a timed-out wait is resumed with: the store it is kept in (none: held in this process) and the listeners of the leg that armed it. */
export type DeadlineOptions = Pick<ResumeOptions, 'owner' | 'leaseMs' | 'onEvent' | 'recorders' | 'session' | 'streaming'> & { store?: RunStore };

/** setTimeout's longest delay; a longer wait is re-armed when it runs out. */
const MAX_DELAY = 2 ** 31 - 1;

interface WaitAt {
  nodeId: string;
  gate: string;
  deadline: number;
  now: () => number;
}

/** Where a stored record waits at a HumanGate with a deadline, or null. */
function waitOf(compiled: CompiledWorkflow, record: { status: string; snapshot: unknown } | null): WaitAt | null {
  if (record === null || record.status !== 'waiting') return null;
  const context = (record.snapshot as { context?: { waiting?: { nodeId?: string } | null; state?: Record<string, unknown> } } | null)?.context;
  const nodeId = context?.waiting?.nodeId;
  const rt = nodeId === undefined ? undefined : compiled.runtime.get(nodeId);
  if (rt?.type !== 'person') return null;
  const gate = compiled.runtime.get(rt.gate);
  const person = gate?.type === 'gate' ? gate.gate.waitsForPerson : undefined;
  const deadline = context?.state?.[deadlineKey(rt.gate)];
  if (person === undefined || person.timeoutMs === null || typeof deadline !== 'number') return null;
  return { nodeId: nodeId!, gate: rt.gate, deadline, now: person.now };
}

/**
 * Arms the deadline of a run that waits at a `HumanGate` with `timeoutMs`: when it passes and the
 * run still waits at that same wait (no reply came, no other process resumed it), the run is
 * resumed with TIMEOUT and takes `onTimeout` — in memory and, for a stored run, in the process
 * that armed it. The timer does not keep the process alive; a run whose process ended is armed
 * again by `recoverRuns` in the next one (at once when its deadline has passed), and a reply that
 * comes after the deadline takes `onTimeout` anyway.
 */
export async function watchDeadline(compiled: CompiledWorkflow, machine: GraphMachine, runId: string, options: DeadlineOptions): Promise<void> {
  const store = options.store ?? defaultMemoryStore;
  const wait = waitOf(compiled, await store.getRun(runId));
  if (wait === null) return;
  const fire = async () => {
    const left = wait.deadline - wait.now();
    if (left > 0) {
      // The clock says it is not time yet (a long wait re-armed in steps, or an injected clock).
      setTimeout(() => void fire(), Math.min(left, MAX_DELAY)).unref();
      return;
    }
    const now = waitOf(compiled, await store.getRun(runId));
    if (now === null || now.nodeId !== wait.nodeId || now.deadline !== wait.deadline) return;
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
