import type { z } from 'zod';
import { GraphDefinitionError } from '../errors/GraphDefinitionError.js';
import { StateModel } from '../state/StateModel.js';

/**
 * A typed key of an {@link AgentContext}: its name and the zod schema its values must pass. It is
 * the same thing as a declared graph state key (a name and a schema), and writes are checked by
 * the same `StateModel` a typed `StateGraph` uses, so a refused value is a `StateValidationError`
 * naming the key.
 */
export interface ContextKey<T> {
  readonly name: string;
  readonly schema: z.ZodType<T>;
  /** The state model that checks writes (one declared key). */
  readonly model: StateModel;
}

/**
 * Makes a typed context key.
 *
 * @example
 * const CONFIDENCE = contextKey('confidence', z.number().min(0).max(1));
 * const next = ctx.mutate().with(CONFIDENCE, 0.9).build();
 * next.get(CONFIDENCE); // 0.9, typed number | undefined
 */
export function contextKey<T>(name: string, schema: z.ZodType<T>): ContextKey<T> {
  if (typeof name !== 'string' || name.trim() === '') {
    throw new GraphDefinitionError(`contextKey: the name must be a non-blank string; received ${typeof name === 'string' ? '""' : typeof name}`);
  }
  return Object.freeze({ name, schema, model: StateModel.fromSpec({ [name]: schema }, 'context') });
}
