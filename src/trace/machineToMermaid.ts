import type { GraphMachine } from '../graph/compileMachine.js';
import { END } from '../graph/END.js';
import type { RunnableGraph } from '../graph/RunnableGraph.js';
import { machineGraph, machineOf, type MachineEdge } from './machineGraph.js';
import { END_ROUTE } from '../workflow/workflowKeys.js';
import { transitionNames, type TransitionName } from './transitionNames.js';
import { isGateNode } from '../workflow/isGateNode.js';

/** Options for {@link machineToMermaid}. */
export interface MermaidOptions {
  /** Diagram direction (default `TB`). */
  direction?: 'TB' | 'LR' | 'BT' | 'RL';
  /** Draw the fuse and failure final states with their legend notes (default true). */
  failures?: boolean;
}

/**
 * Text safe inside a Mermaid label or state description: the characters that end one (`:` `;` `"`),
 * start a comment (`%`, `#`) or a block (`{` `}`), and those Mermaid would read as HTML and drop
 * (`<` `>` `&`), become Mermaid entity codes; line breaks, spaces.
 */
function label(text: string): string {
  return text.replace(/[#;:"%{}<>&\n\r]/g, (c) => (c === '\n' || c === '\r' ? ' ' : `#${c.charCodeAt(0)};`));
}

const FAILURES: ReadonlySet<MachineEdge['kind']> = new Set(['fuse', 'route-failed', 'error']);

/** What an edge says: the route keys of a conditional group, a transition's name (or nothing), `end` otherwise. */
function edgeLabel(edge: MachineEdge, groupsOnNode: number, transitionName: TransitionName): string | null {
  switch (edge.kind) {
    case 'conditional': {
      // A router without a route map returns node ids, or END (whose value is `__end__`).
      const keys = (edge.keys ?? [edge.to]).map((k) => (k === END ? 'END' : label(k))).join(' | ');
      return groupsOnNode > 1 ? `${keys} (group ${edge.index ?? 0})` : keys;
    }
    case 'transition': {
      const name = transitionName(edge);
      return name === null ? null : label(name);
    }
    default:
      return 'end';
  }
}

/**
 * A graph's compiled machine as a Mermaid `stateDiagram-v2` that reads like a statechart: one state
 * per node labelled with the node id the graph was written with (human nodes as composite states
 * that wait for `human.reply`; a coordinator as a composite state with one concurrent region per
 * specialist), conditional edges labelled by their route keys, transitions by their condition's
 * name (`else` after one, no label when unconditional).
 *
 * Hops every node has are folded into legend notes rather than drawn from every node: the fuse
 * (note on `maxSteps`), a node or routing failure (note on `failed`), the end when no route matches
 * on a node that has other routes (note on `completed`, naming those nodes), and a typed
 * workflow's early-end route `workflow:end` (note on `completed`). {@link machineToJson} keeps
 * every hop.
 *
 * @example
 * fs.writeFileSync('graph.mmd', machineToMermaid(graph));
 */
export function machineToMermaid(graph: RunnableGraph | GraphMachine, options: MermaidOptions = {}): string {
  const shape = machineGraph(graph);
  const failures = options.failures ?? true;
  const machine = machineOf(graph);
  const transitionName = transitionNames(machine);
  // Mermaid ids are identifiers: node keys are mapped to `n_<safe>` (unique), final states keep their names.
  const ids = new Map<string, string>();
  const used = new Set<string>(shape.finalStates);
  const unique = (base: string) => {
    let id = base;
    for (let i = 2; used.has(id); i++) id = `${base}_${i}`;
    used.add(id);
    return id;
  };
  for (const node of shape.nodes) ids.set(node.key, unique(`n_${node.key.replace(/[^A-Za-z0-9_]/g, '_')}`));
  const idOf = (key: string) => ids.get(key) ?? key;
  const lines = ['stateDiagram-v2', `  direction ${options.direction ?? 'TB'}`];
  for (const node of shape.nodes) {
    const id = idOf(node.key);
    lines.push(`  state "${label(node.id)}" as ${id}`);
    if (node.kind === 'human') {
      const waiting = unique(`${id}_waiting`);
      const routing = unique(`${id}_routing`);
      lines.push(`  state ${id} {`, `    state "waiting for a reply" as ${waiting}`, `    state "routing" as ${routing}`, `    [*] --> ${waiting}`, `    ${waiting} --> ${routing} : human.reply`, '  }');
    }
    if ((node.kind === 'coordinator' || node.kind === 'fork') && (node.parts ?? []).length > 0) {
      // The specialists (a fork's branches) run at once: one concurrent region each (`--` separates regions).
      const regions = (node.parts ?? []).map((part) => {
        const inner = unique(`${id}_${part.name.replace(/[^A-Za-z0-9_]/g, '_')}`);
        const text = part.graph === part.name ? part.name : `${part.name} (${part.graph})`;
        return [`    state "${label(text)}" as ${inner}`, `    [*] --> ${inner}`, `    ${inner} --> [*]`];
      });
      lines.push(`  state ${id} {`, ...regions.flatMap((region, i) => (i === 0 ? region : ['    --', ...region])), '  }');
    }
  }
  const start = shape.nodes.find((n) => n.id === shape.start);
  lines.push(`  [*] --> ${start === undefined ? 'completed' : idOf(start.key)}`);
  let foldedEnds = 0;
  const endsWithoutRoute: string[] = [];
  for (const node of shape.nodes) {
    const out = shape.edges.filter((e) => e.fromKey === node.key && !FAILURES.has(e.kind));
    const groups = new Set(out.filter((e) => e.kind === 'conditional').map((e) => e.index)).size;
    const drawn: MachineEdge[] = [];
    for (let edge of out) {
      // A typed workflow's gate always answers one of its routes: its fallback transition is never taken.
      if (edge.kind === 'transition' && isGateNode(machine, edge.from)) continue;
      // Every step of a typed workflow can end the run at once (abort, terminate, a spent loop fuse).
      if (shape.kind === 'workflow' && edge.kind === 'conditional' && edge.keys?.includes(END_ROUTE) === true) {
        foldedEnds++;
        const keys = edge.keys.filter((k) => k !== END_ROUTE);
        if (keys.length === 0) continue;
        edge = { ...edge, keys };
      }
      drawn.push(edge);
    }
    // The end when no route matches is one legend entry unless it is the node's only way on.
    const onlyEnd = drawn.every((e) => e.kind === 'end');
    for (const edge of drawn) {
      if (edge.kind === 'end' && !onlyEnd) {
        endsWithoutRoute.push(label(node.id));
        continue;
      }
      const text = edgeLabel(edge, groups, transitionName);
      lines.push(`  ${idOf(edge.fromKey)} --> ${idOf(edge.toKey)}${text === null ? '' : ` : ${text}`}`);
    }
  }
  const reached = (f: string) => shape.edges.some((e) => e.toKey === f && (failures || !FAILURES.has(e.kind)));
  const finals = shape.finalStates.filter((f) => f === 'completed' || f === 'cancelled' || reached(f));
  for (const final of finals) lines.push(`  ${final} --> [*]`);
  lines.push('  note right of cancelled : any state on workflow.cancel');
  if (foldedEnds > 0) lines.push(`  note left of completed : any step on ${label(END_ROUTE)} (abort, terminate, spent loop fuse)`);
  if (endsWithoutRoute.length > 0) lines.push(`  note right of completed : no route matched at ${endsWithoutRoute.join(', ')}`);
  if (failures && finals.includes('maxSteps')) {
    // A typed workflow's fuse is unbounded (its loops have their own): the note does not print 2^53 - 1.
    const fuse = shape.maxSteps !== null && shape.maxSteps < Number.MAX_SAFE_INTEGER ? `its maxSteps fuse (${shape.maxSteps})` : 'the fuse';
    lines.push(`  note right of maxSteps : any node once ${fuse} is spent`);
  }
  if (failures && finals.includes('failed')) lines.push('  note right of failed : any node whose step throws or whose route fails');
  return `${lines.join('\n')}\n`;
}
