import { compiledOf } from './compiledOf.js';

/**
 * True when `nodeId` is a typed workflow's gate in `machine`. A gate answers one of its routes every
 * time (a person's gate always `WAIT`; strict routes fail any other answer), so the fallback
 * transition its node is compiled with is never taken: drawings leave it out.
 */
export function isGateNode(machine: object, nodeId: string): boolean {
  return compiledOf(machine)?.runtime.get(nodeId)?.type === 'gate';
}
