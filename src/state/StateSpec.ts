import type { z } from 'zod';

/**
 * How a write to a state key combines with the value already there: `replace` (the default) keeps
 * the written value; `append` concatenates the written array onto the current one (the key's
 * schema is an array schema, and each write is checked against it); a function gets the current
 * value (undefined at first) and the written update and returns the new value, which is checked
 * against the schema.
 */
export type StateReducer<T, U = T> = 'replace' | 'append' | ((current: T | undefined, update: U) => T);

/** A state key with a reducer; make one with {@link withReducer}. */
export interface ReducedKey<T = unknown, U = T> {
  readonly schema: z.ZodType<T>;
  readonly reducer: StateReducer<T, U>;
}

/** One declared key: a zod schema (written values replace the old one) or a {@link ReducedKey}. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type StateKeySpec = z.ZodType | ReducedKey<any, any>;

/** The `state` option of a graph: its keys and what each holds. */
export type StateSpec = Record<string, StateKeySpec>;

/** What a declared key holds. */
export type StateValueOf<K> = K extends ReducedKey<infer T, infer _U> ? T : K extends z.ZodType ? z.output<K> : never;

/** What `ctx.put` accepts for a declared key (the update a reducer function takes). */
export type StateUpdateOf<K> = K extends ReducedKey<infer _T, infer U> ? U : K extends z.ZodType ? z.output<K> : never;

/** The values of a declared state, key by key. */
export type StateValues<S extends StateSpec> = { [K in keyof S & string]: StateValueOf<S[K]> };

/** The updates `ctx.put` accepts, key by key. */
export type StateUpdates<S extends StateSpec> = { [K in keyof S & string]: StateUpdateOf<S[K]> };

/**
 * A state key with a reducer: how each write combines with the value already there.
 *
 * @example
 * new StateGraph({
 *   state: {
 *     draft: z.string(),                                                       // replaced by each write
 *     notes: withReducer(z.array(z.string()), 'append'),                       // put('notes', ['one more'])
 *     tokens: withReducer(z.number(), (total, used: number) => (total ?? 0) + used),
 *   },
 * });
 */
export function withReducer<T>(schema: z.ZodType<T>, reducer: 'replace'): ReducedKey<T, T>;
export function withReducer<T extends readonly unknown[]>(schema: z.ZodType<T>, reducer: 'append'): ReducedKey<T, T>;
export function withReducer<T, U>(schema: z.ZodType<T>, reducer: (current: T | undefined, update: U) => T): ReducedKey<T, U>;
export function withReducer<T, U>(schema: z.ZodType<T>, reducer: StateReducer<T, U>): ReducedKey<T, U> {
  return { schema, reducer };
}
