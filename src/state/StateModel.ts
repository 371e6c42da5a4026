import { z } from 'zod';
import { GraphDefinitionError } from '../errors/GraphDefinitionError.js';
import { StateValidationError } from '../errors/StateValidationError.js';
import { formatZodError } from '../errors/formatZodError.js';
import { describeThrown } from '../errors/SwitchboardError.js';
import type { StateReducer, StateSpec } from './StateSpec.js';
import { NotJsonValue, toStateValue } from './toStateValue.js';

interface KeyRule {
  schema: z.ZodType;
  reducer: StateReducer<unknown, unknown>;
}

const where = (key: string, nodeId: string | null) => `state key "${key}" (${nodeId === null ? 'the run’s initial state' : `written by node "${nodeId}"`})`;

/**
 * What a graph's state may hold, checked at every write: with a declared state, each key's zod
 * schema and reducer (undeclared keys are refused); without one, any key. Either way the value
 * must be JSON, and what is stored is a frozen copy of it. The same checks run in memory and in a
 * stored run, at the write, so a bad value fails the node that wrote it.
 */
export class StateModel {
  /** True when the graph declared its state keys. */
  readonly typed: boolean;
  readonly #rules: ReadonlyMap<string, KeyRule>;

  private constructor(rules: ReadonlyMap<string, KeyRule> | null) {
    this.typed = rules !== null;
    this.#rules = rules ?? new Map();
  }

  /** The model of a graph that does not declare its state: any key, JSON values. */
  static readonly untyped = new StateModel(null);

  /** Builds the model of a declared state, refusing a malformed declaration. */
  static fromSpec(spec: StateSpec, graph: string): StateModel {
    if (spec === null || typeof spec !== 'object' || Array.isArray(spec)) {
      throw new GraphDefinitionError(`StateGraph("${graph}"): state must be an object of key → zod schema (or withReducer(schema, reducer))`);
    }
    const rules = new Map<string, KeyRule>();
    for (const [key, entry] of Object.entries(spec)) {
      const given = entry as unknown;
      const isSchema = (v: unknown): v is z.ZodType => v instanceof z.ZodType;
      const rule: KeyRule | null = isSchema(given)
        ? { schema: given, reducer: 'replace' }
        : given !== null && typeof given === 'object' && isSchema((given as KeyRule).schema)
          ? { schema: (given as KeyRule).schema, reducer: (given as KeyRule).reducer ?? 'replace' }
          : null;
      if (rule === null) {
        throw new GraphDefinitionError(`StateGraph("${graph}"): state key "${key}" must be a zod schema or withReducer(schema, reducer)`);
      }
      if (rule.reducer !== 'replace' && rule.reducer !== 'append' && typeof rule.reducer !== 'function') {
        throw new GraphDefinitionError(`StateGraph("${graph}"): state key "${key}" has reducer ${JSON.stringify(rule.reducer)}; use 'replace', 'append' or a function (current, update) => value`);
      }
      rules.set(key, rule);
    }
    return new StateModel(rules);
  }

  /** True when the key is declared (always false for an untyped model). */
  declares(key: string): boolean {
    return this.#rules.has(key);
  }

  /** The declared keys. */
  get keys(): string[] {
    return [...this.#rules.keys()];
  }

  /** The value to store when `value` replaces the key's value (`ctx.state.set`, initial state): checked, copied, frozen. */
  check(key: string, value: unknown, nodeId: string | null): unknown {
    const rule = this.#rule(key, nodeId);
    return this.#store(key, rule === null ? value : this.#parse(rule.schema, key, value, nodeId), nodeId);
  }

  /** The value to store when `update` is written with `ctx.put`: the key's reducer applied to `current`, checked. */
  reduce(key: string, current: unknown, update: unknown, nodeId: string | null): unknown {
    const rule = this.#rule(key, nodeId);
    if (rule === null || rule.reducer === 'replace') return this.check(key, update, nodeId);
    if (rule.reducer === 'append') {
      if (!Array.isArray(update)) {
        throw new StateValidationError(`${where(key, nodeId)} appends: put an array of the items to append; received ${kindOf(update)}`, { code: 'state_invalid', key, nodeId });
      }
      const added = this.#store(key, this.#parse(rule.schema, key, update, nodeId), nodeId) as unknown[];
      return Object.freeze([...(Array.isArray(current) ? current : []), ...added]);
    }
    let next: unknown;
    try {
      next = rule.reducer(current, update);
    } catch (cause) {
      throw new StateValidationError(`${where(key, nodeId)}: its reducer threw: ${describeThrown(cause)}`, { code: 'state_invalid', key, nodeId, cause });
    }
    return this.check(key, next, nodeId);
  }

  /** A run's initial state (`RunOptions.state`, machine input): every key checked, values copied and frozen. */
  initial(values: Record<string, unknown> | undefined): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    if (values === undefined || values === null) return out;
    for (const key of Object.keys(values)) {
      const value = this.check(key, values[key], null);
      if (value !== undefined) out[key] = value;
    }
    return out;
  }

  #rule(key: string, nodeId: string | null): KeyRule | null {
    if (!this.typed) return null;
    const rule = this.#rules.get(key);
    if (rule === undefined) {
      const known = this.keys.length === 0 ? 'none' : this.keys.map((k) => `"${k}"`).join(', ');
      throw new StateValidationError(`${where(key, nodeId)} is not declared in the graph's state (declared: ${known}); add it to \`state\` or fix the key`, {
        code: 'state_undeclared',
        key,
        nodeId,
      });
    }
    return rule;
  }

  #parse(schema: z.ZodType, key: string, value: unknown, nodeId: string | null): unknown {
    const parsed = schema.safeParse(value);
    if (parsed.success) return parsed.data;
    throw new StateValidationError(`${where(key, nodeId)} does not match its schema: ${formatZodError(parsed.error)}; put a value the schema accepts`, {
      code: 'state_invalid',
      key,
      nodeId,
    });
  }

  #store(key: string, value: unknown, nodeId: string | null): unknown {
    try {
      return toStateValue(value);
    } catch (error) {
      if (!(error instanceof NotJsonValue)) throw error;
      const at = error.detail.at === '' ? '' : ` at ${key}${error.detail.at}`;
      throw new StateValidationError(
        `${where(key, nodeId)} holds ${error.detail.what}${at}, which JSON cannot represent; state values are plain objects, arrays, strings, finite numbers, booleans or null (convert it, e.g. a Date to an ISO string)`,
        { code: 'state_not_json', key, nodeId },
      );
    }
  }
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}
