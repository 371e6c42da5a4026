import { specOf, type GraphMachine } from '../graph/compileMachine.js';
import type { RunnableGraph } from '../graph/RunnableGraph.js';
import { machineGraph, machineOf, type MachineGraph } from './machineGraph.js';

/** What stands in for a function of the machine config (the context factory, invoke inputs, the output mapper). */
export const FUNCTION_MARKER = '[function]';

/**
 * A compiled graph as JSON: the XState machine config itself (every state, `invoke` with its actor
 * name and id, every guard with its params, every action with its params; functions replaced by
 * `"[function]"`), the names of the actors, guards and actions the machine implements, and the
 * graph read from it ({@link machineGraph}: nodes and prioritized hops).
 */
export interface MachineJson extends MachineGraph {
  format: 'switchboard.machine';
  version: 1;
  /** The XState machine id. */
  id: string;
  /** Implementations the config refers to by name. */
  actors: string[];
  guards: string[];
  actions: string[];
  /** The machine config, as given to XState's `createMachine`. */
  machine: unknown;
  /** For a typed workflow: its plain-data `WorkflowGraph` (what `workflow.compile()` gives), which the machine was compiled from. */
  workflow?: unknown;
}

/** A plain-JSON copy of a machine config, with functions marked. */
function configJson(value: unknown): unknown {
  if (typeof value === 'function') return FUNCTION_MARKER;
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(configJson);
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) if (inner !== undefined) out[key] = configJson(inner);
  return out;
}

/**
 * A graph's compiled machine as JSON (see {@link MachineJson}); `JSON.stringify` it to save or send.
 *
 * @example
 * const json = machineToJson(graph);
 * json.machine.states.classify.invoke.src;            // 'classify'
 * json.edges.filter((e) => e.kind === 'conditional');  // the route keys of every group
 */
export function machineToJson(graph: RunnableGraph | GraphMachine): MachineJson {
  const machine = machineOf(graph);
  const implementations = machine.implementations as { actors: object; guards: object; actions: object };
  return {
    format: 'switchboard.machine',
    version: 1,
    id: machine.id,
    ...machineGraph(machine),
    actors: Object.keys(implementations.actors),
    guards: Object.keys(implementations.guards),
    actions: Object.keys(implementations.actions),
    machine: configJson(machine.config),
    ...(specOf(machine).io?.graph === undefined ? {} : { workflow: specOf(machine).io!.graph }),
  };
}
