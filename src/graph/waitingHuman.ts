import { isCompilableNode } from './CompilableNode.js';
import { specOf } from './compileMachine.js';
import type { GraphMachineContext } from './GraphMachineContext.js';
import { isHumanNode, type HumanNode } from './humanNode.js';

/** The human node a waiting run waits at, and where: its node id and its run's trace path. */
export interface WaitingHuman {
  node: HumanNode;
  nodeId: string;
  /** `root`, or the specialist's path (`root/refund[2]`) when the wait is inside a coordinator. */
  path: string;
}

/**
 * Finds the human node a persisted waiting snapshot waits at: the graph's own human node, or —
 * through each coordinator whose specialist waits — the one inside that specialist. Null when the
 * snapshot does not wait.
 */
export function waitingHuman(machine: object, snapshot: unknown): WaitingHuman | null {
  const context = (snapshot as { context?: GraphMachineContext } | null)?.context;
  const waiting = context?.waiting;
  if (waiting === null || waiting === undefined) return null;
  const spec = specOf(machine);
  for (const compiled of spec.nodes) {
    if (compiled.id !== waiting.nodeId) continue;
    if (isHumanNode(compiled.node)) return { node: compiled.node, nodeId: compiled.id, path: context!.trace?.path ?? 'root' };
    if (isCompilableNode(compiled.node) && compiled.node.waitingChild !== undefined) {
      const child = compiled.node.waitingChild(snapshot, compiled.id);
      return child === null ? null : waitingHuman(child.machine, child.snapshot);
    }
  }
  return null;
}
