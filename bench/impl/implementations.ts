import type { ImplementationFactory } from './Implementation.js';

/**
 * Every implementation, loaded on demand by key (so a memory child imports only the engine it
 * measures and its baseline holds no other engine's code). The key order is the table order.
 */
export const implementationLoaders = {
  plain: async () => (await import('./plainLoop.js')).plainLoop,
  xstate: async () => (await import('./bareXState.js')).bareXState,
  switchboard: async () => (await import('./switchboard.js')).switchboard,
  switchboardTyped: async () => (await import('./switchboardTyped.js')).switchboardTyped,
  langgraph: async () => (await import('./langGraph.js')).langGraph,
} satisfies Record<string, () => Promise<ImplementationFactory>>;

export type ImplementationKey = keyof typeof implementationLoaders;

export const implementationKeys = Object.keys(implementationLoaders) as ImplementationKey[];

/** Narrows a command-line argument to a key. */
export function isImplementationKey(value: unknown): value is ImplementationKey {
  return typeof value === 'string' && Object.hasOwn(implementationLoaders, value);
}
