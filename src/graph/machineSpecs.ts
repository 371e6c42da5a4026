import type { GraphSpec } from './GraphSpec.js';
import { StateModel } from '../state/StateModel.js';

const specs = new WeakMap<object, GraphSpec>();

/** Remembers the validated graph a machine was compiled from. */
export function registerSpec(machine: object, spec: GraphSpec): void {
  specs.set(machine, spec);
}

/** The validated graph a machine was compiled from, if Switchboard compiled it. */
export function findSpec(machine: object | undefined): GraphSpec | undefined {
  return machine === undefined ? undefined : specs.get(machine);
}

/** The state model of the machine an actor runs (untyped for machines Switchboard did not compile). */
export function stateModelOf(actor: { logic?: unknown } | undefined): StateModel {
  const logic = actor?.logic;
  return (typeof logic === 'object' && logic !== null ? specs.get(logic)?.state : undefined) ?? StateModel.untyped;
}
