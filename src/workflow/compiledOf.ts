import type { CompiledWorkflow } from './compileWorkflow.js';

/**
 * Which compiled workflow each workflow machine was built from. A module of its own, so that code
 * asking about any machine (drawings, exports) does not load the typed workflow engine.
 */
const compiledWorkflows = new WeakMap<object, CompiledWorkflow>();

/** Notes that `machine` was built from `compiled` (done by the workflow compiler). */
export function registerCompiled(machine: object, compiled: CompiledWorkflow): void {
  compiledWorkflows.set(machine, compiled);
}

/** The compiled workflow a machine was built from (undefined for a machine no workflow built). */
export function compiledOf(machine: object): CompiledWorkflow | undefined {
  return compiledWorkflows.get(machine);
}
