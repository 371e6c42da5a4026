import type { WorkflowGraph, WorkflowGraphNode } from './WorkflowGraph.js';
import { TypeIncompatibleError } from './TypeIncompatibleError.js';

type Schema = Record<string, unknown>;

/** Nodes the value passes through unchanged: a step after one of them gets the value before it. */
const PASS_THROUGH: ReadonlySet<WorkflowGraphNode['type']> = new Set(['gateway', 'decision', 'gate', 'loop-entry', 'loop-check', 'loop-exit']);

function typesOf(schema: Schema): Set<string> | null {
  if (Array.isArray(schema.enum)) return new Set(schema.enum.map((v) => (v === null ? 'null' : Number.isInteger(v) ? 'integer' : typeof v)));
  if ('const' in schema) return new Set([schema.const === null ? 'null' : typeof schema.const]);
  if (typeof schema.type === 'string') return new Set([schema.type]);
  if (Array.isArray(schema.type)) return new Set(schema.type as string[]);
  for (const key of ['anyOf', 'oneOf'] as const) {
    if (Array.isArray(schema[key])) {
      const all = new Set<string>();
      for (const part of schema[key] as Schema[]) {
        const t = typesOf(part);
        if (t === null) return null;
        for (const x of t) all.add(x);
      }
      return all;
    }
  }
  return null;
}

/** A short description of a schema for messages: `string`, `number`, `{ label: string }`, `"a" | "b"`. */
export function describeSchema(schema: Schema): string {
  if (Array.isArray(schema.enum)) return schema.enum.map((v) => JSON.stringify(v)).join(' | ');
  if (schema.type === 'object' && schema.properties !== null && typeof schema.properties === 'object') {
    const props = Object.entries(schema.properties as Record<string, Schema>).map(([k, v]) => `${k}: ${describeSchema(v)}`);
    return `{ ${props.join('; ')} }`;
  }
  if (schema.type === 'array' && typeof schema.items === 'object' && schema.items !== null) return `${describeSchema(schema.items as Schema)}[]`;
  const types = typesOf(schema);
  return types === null ? 'any value' : [...types].join(' | ');
}

/**
 * True when every value `output` allows is allowed by `input`, as far as the JSON Schema shape
 * tells: types (an integer is a number), enums, required object properties (recursively) and
 * array items. A schema without a type (any value) accepts everything.
 */
export function accepts(input: Schema, output: Schema): boolean {
  const want = typesOf(input);
  if (want === null) return true;
  const have = typesOf(output);
  if (have === null) return false;
  for (const t of have) if (!want.has(t) && !(t === 'integer' && want.has('number'))) return false;
  if (Array.isArray(input.enum)) {
    if (!Array.isArray(output.enum) && !('const' in output)) return false;
    const values = Array.isArray(output.enum) ? output.enum : [output.const];
    if (!values.every((v) => (input.enum as unknown[]).includes(v))) return false;
  }
  if (want.has('object') && have.has('object')) {
    const required = Array.isArray(input.required) ? (input.required as string[]) : [];
    const inProps = (input.properties ?? {}) as Record<string, Schema>;
    const outProps = (output.properties ?? {}) as Record<string, Schema>;
    const outRequired = new Set(Array.isArray(output.required) ? (output.required as string[]) : []);
    for (const key of required) {
      if (!outRequired.has(key) || outProps[key] === undefined) return false;
      if (inProps[key] !== undefined && !accepts(inProps[key], outProps[key])) return false;
    }
  }
  if (want.has('array') && have.has('array') && typeof input.items === 'object' && input.items !== null) {
    if (typeof output.items !== 'object' || output.items === null) return false;
    if (!accepts(input.items as Schema, output.items as Schema)) return false;
  }
  return true;
}

/**
 * Checks a workflow graph without running it: each typed step's output schema must be accepted by
 * the input schema of every typed step that receives its output next (through branches, gates
 * and loop nodes, which pass values on unchanged). An untyped step on the way breaks the chain
 * with no error. Throws `TypeIncompatibleError` naming both steps and both types.
 *
 * @example
 * assertTypeCompatible(workflow.compile()); // in CI, no model call needed
 */
export function assertTypeCompatible(graph: WorkflowGraph): void {
  const byId = new Map(graph.nodes.map((n) => [n.id, n]));
  const next = (id: string): string[] => graph.edges.filter((e) => e.from === id && e.condition !== 'error').map((e) => e.to);
  for (const node of graph.nodes) {
    const output = node.type === 'step' ? node.schemas?.output : undefined;
    if (output === undefined) continue;
    const seen = new Set<string>();
    const queue = next(node.id);
    while (queue.length > 0) {
      const id = queue.shift()!;
      if (seen.has(id)) continue;
      seen.add(id);
      const target = byId.get(id);
      if (target === undefined || id === graph.finishNode) continue;
      if (PASS_THROUGH.has(target.type)) {
        queue.push(...next(id));
        continue;
      }
      if (target.type !== 'step') continue;
      const input = target.schemas?.input;
      if (input !== undefined && !accepts(input, output)) throw new TypeIncompatibleError(node.label, target.label, describeSchema(output), describeSchema(input));
    }
  }
}
