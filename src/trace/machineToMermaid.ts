import type { GraphMachine } from '../graph/compileMachine.js';
import { END } from '../graph/END.js';
import type { RunnableGraph } from '../graph/RunnableGraph.js';
import { machineGraph, type MachineEdge } from './machineGraph.js';
import { END_ROUTE } from '../workflow/workflowKeys.js';

/** Options for {@link machineToMermaid}. */
export interface MermaidOptions {
  /** Diagram direction (default `TB`). */
  direction?: 'TB' | 'LR' | 'BT' | 'RL';
  /** Draw the fuse, routing-failure and node-failure hops (default true). */
  failures?: boolean;
}

/**
 * Text safe inside a Mermaid label or state description: the characters that end one (`:` `;` `"`),
 * start a comment (`%`, `#`) or a block (`{` `}`) become Mermaid entity codes; line breaks, spaces.
 */
function label(text: string): string {
  return text.replace(/[#;:"%{}\n\r]/g, (c) => (c === '\n' || c === '\r' ? ' ' : `#${c.charCodeAt(0)};`));
}

const FAILURES: ReadonlySet<MachineEdge['kind']> = new Set(['fuse', 'route-failed', 'error']);

/** What an edge says: route keys for a conditional group, `transition N` for a transition, the reason otherwise. */
function edgeLabel(edge: MachineEdge, groupsOnNode: number): string {
  switch (edge.kind) {
    case 'conditional': {
      // A router without a route map returns node ids, or END (whose value is `__end__`).
      const keys = (edge.keys ?? [edge.to]).map((k) => (k === END ? 'END' : label(k))).join(' | ');
      return groupsOnNode > 1 ? `${keys} (group ${edge.index ?? 0})` : keys;
    }
    case 'transition':
      return `transition ${edge.index ?? 0}${edge.conditional ? ' (if)' : ''}`;
    case 'end':
      return 'no route (end)';
    case 'fuse':
      return 'fuse (maxSteps)';
    case 'route-failed':
      return 'route failed';
    case 'error':
      return 'node failed';
  }
}

/**
 * A graph's compiled machine as a Mermaid `stateDiagram-v2`: one state per node (human nodes as
 * composite states that wait for `human.reply`; a coordinator as a composite state with one
 * concurrent region per specialist), conditional edges labelled by their route keys,
 * transitions labelled `transition N` (`(if)` when they have a condition), the end when nothing
 * matches, and the fuse and failure hops to the final states. A typed workflow's early-end route
 * (`workflow:end`, which every step has) is one note on `completed`, not an edge from every step.
 *
 * @example
 * fs.writeFileSync('graph.mmd', machineToMermaid(graph));
 */
export function machineToMermaid(graph: RunnableGraph | GraphMachine, options: MermaidOptions = {}): string {
  const shape = machineGraph(graph);
  const failures = options.failures ?? true;
  // Mermaid ids are identifiers: node keys are mapped to `n_<safe>` (unique), final states keep their names.
  const ids = new Map<string, string>();
  const used = new Set<string>(shape.finalStates);
  for (const node of shape.nodes) {
    const base = `n_${node.key.replace(/[^A-Za-z0-9_]/g, '_')}`;
    let id = base;
    for (let i = 2; used.has(id); i++) id = `${base}_${i}`;
    used.add(id);
    ids.set(node.key, id);
  }
  const idOf = (key: string) => ids.get(key) ?? key;
  const lines = ['stateDiagram-v2', `  direction ${options.direction ?? 'TB'}`];
  for (const node of shape.nodes) {
    const id = idOf(node.key);
    lines.push(`  state "${label(node.id)}" as ${id}`);
    if (node.kind === 'human') {
      lines.push(`  state ${id} {`, `    [*] --> ${id}_waiting`, `    ${id}_waiting --> ${id}_routing : human.reply`, '  }');
    }
    if ((node.kind === 'coordinator' || node.kind === 'fork') && (node.parts ?? []).length > 0) {
      // The specialists (a fork's branches) run at once: one concurrent region each (`--` separates regions).
      const regions = (node.parts ?? []).map((part) => {
        let inner = `${id}_${part.name.replace(/[^A-Za-z0-9_]/g, '_')}`;
        while (used.has(inner)) inner = `${inner}_`;
        used.add(inner);
        const text = part.graph === part.name ? part.name : `${part.name} (${part.graph})`;
        return [`    state "${label(text)}" as ${inner}`, `    [*] --> ${inner}`, `    ${inner} --> [*]`];
      });
      lines.push(`  state ${id} {`, ...regions.flatMap((region, i) => (i === 0 ? region : ['    --', ...region])), '  }');
    }
  }
  const start = shape.nodes.find((n) => n.id === shape.start);
  lines.push(`  [*] --> ${start === undefined ? 'completed' : idOf(start.key)}`);
  // Every step of a typed workflow can end the run at once (abort, terminate, a spent loop fuse): those
  // routes are folded into one note instead of an edge from each step (the JSON export keeps them all).
  let foldedEnds = 0;
  for (const node of shape.nodes) {
    const out = shape.edges.filter((e) => e.fromKey === node.key);
    const groups = new Set(out.filter((e) => e.kind === 'conditional').map((e) => e.index)).size;
    for (let edge of out.filter((e) => !FAILURES.has(e.kind))) {
      if (shape.kind === 'workflow' && edge.kind === 'conditional' && edge.keys?.includes(END_ROUTE) === true) {
        foldedEnds++;
        const keys = edge.keys.filter((k) => k !== END_ROUTE);
        if (keys.length === 0) continue;
        edge = { ...edge, keys };
      }
      lines.push(`  ${idOf(edge.fromKey)} --> ${idOf(edge.toKey)} : ${edgeLabel(edge, groups)}`);
    }
    if (!failures) continue;
    // The failure hops of a node share one edge per final state, so they do not crowd the drawing.
    const byTarget = new Map<string, string[]>();
    for (const edge of out.filter((e) => FAILURES.has(e.kind))) byTarget.set(edge.toKey, [...(byTarget.get(edge.toKey) ?? []), edgeLabel(edge, groups)]);
    for (const [to, labels] of byTarget) lines.push(`  ${idOf(node.key)} --> ${to} : ${labels.join(' / ')}`);
  }
  const finals = shape.finalStates.filter((f) => f === 'completed' || f === 'cancelled' || shape.edges.some((e) => e.toKey === f));
  for (const final of finals) lines.push(`  ${final} --> [*]`);
  lines.push('  note right of cancelled : any state on workflow.cancel');
  if (foldedEnds > 0) lines.push(`  note left of completed : any step on ${label(END_ROUTE)} (abort, terminate, spent loop fuse)`);
  return `${lines.join('\n')}\n`;
}
