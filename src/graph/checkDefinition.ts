import { describeValue } from './describeValue.js';
import { GraphDefinitionError } from '../errors/GraphDefinitionError.js';

/**
 * Checks a builder's options object: absent or a plain object with only the keys it knows (a typo
 * such as `maxStep` would otherwise be ignored without a word).
 */
export function checkGraphOptions(options: unknown, known: readonly string[], where: string): void {
  const proto = options !== null && typeof options === 'object' ? (Object.getPrototypeOf(options) as unknown) : undefined;
  if (proto !== Object.prototype && proto !== null) {
    throw new GraphDefinitionError(`${where}: options must be an object ({ ${known.join(', ')} }) or omitted; received ${describeValue(options)}`);
  }
  for (const key of Object.keys(options as object)) {
    if (!known.includes(key)) throw new GraphDefinitionError(`${where}: unknown option "${key}"; the options are ${known.join(', ')}`);
  }
}

/** Checks that a node id given to an edge, a transition or `start` is a string. */
export function checkNodeId(id: unknown, where: string): void {
  if (typeof id !== 'string' || id.trim() === '') {
    throw new GraphDefinitionError(`${where}: a node id must be a non-blank string (or END as a target); received ${describeValue(id)}`);
  }
}

/** Checks that a node is a function or an object with `execute` (and, if it has one, a function `executeStream`). */
export function checkNode(node: unknown, where: string): void {
  if (typeof node === 'function') return;
  const object = node !== null && typeof node === 'object' ? (node as { execute?: unknown; executeStream?: unknown }) : null;
  if (object === null || typeof object.execute !== 'function') {
    throw new GraphDefinitionError(`${where}: expected a function or an object with execute(ctx, request); received ${describeValue(node)}`);
  }
  if (object.executeStream !== undefined && typeof object.executeStream !== 'function') {
    throw new GraphDefinitionError(`${where}: executeStream must be a function (ctx, request, emit) or absent; received ${describeValue(object.executeStream)}`);
  }
}
