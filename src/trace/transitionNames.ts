import { specOf, type GraphMachine } from '../graph/compileMachine.js';

/** A transition hop as {@link transitionNames} reads it: its ends, the state key it leaves and its index. */
export interface NamedTransition {
  from: string;
  to: string;
  fromKey: string;
  index?: number;
}

/** What a transition says: the workflow edge's label, the condition's name, `else` after a condition, or nothing. */
export type TransitionName = (edge: NamedTransition) => string | null;

/**
 * Names the transitions of a compiled graph the way drawings label them: a typed workflow's edge
 * label (`FAIL`), else the condition function's name (`if isUrgent`, `if` when it has none), `else`
 * for an unconditional transition that follows a conditional one, and nothing for a plain edge.
 * The Mermaid export and the workbench's machine definition share it, so both say the same.
 */
export function transitionNames(machine: GraphMachine): TransitionName {
  const spec = specOf(machine);
  const workflowEdges = ((spec.io?.graph as { edges?: Array<{ from: string; to: string; label?: string }> } | undefined)?.edges ?? []).filter((e) => e.label !== undefined);
  return (edge) => {
    const fromWorkflow = workflowEdges.filter((e) => e.from === edge.from && e.to === edge.to);
    if (fromWorkflow.length === 1) return fromWorkflow[0]!.label!;
    const transitions = spec.byKey.get(edge.fromKey)?.transitions ?? [];
    const condition = transitions[edge.index ?? 0]?.condition ?? null;
    if (condition !== null) return condition.name === '' ? 'if' : `if ${condition.name}`;
    return transitions.slice(0, edge.index ?? 0).some((t) => t.condition !== null) ? 'else' : null;
  };
}
