import { GraphDefinitionError } from '../errors/GraphDefinitionError.js';
import { WorkflowExecutionError } from '../errors/WorkflowExecutionError.js';
import type { AgentContext } from './AgentContext.js';
import { checkStepName, step, type Step } from './Step.js';
import { SubWorkflowWaiting } from './runSubWorkflow.js';
import { WorkflowTermination, type TerminateStatus, WorkflowAbort } from './WorkflowAbort.js';

/** The context key under which a step's output is recorded for `Steps.outputOf(name)`. */
export const outputKeyOf = (stepName: string): string => `workflow.output:${stepName}`;

/** Marks a step made by `Steps.outputOf`: the compiler records that step's output. */
export const READS_OUTPUT_OF = Symbol.for('switchboard.readsOutputOf');

let anonymous = 0;

/** Built-in steps. */
export const Steps = {
  /** A step from a function, named after it (or `step-N`). */
  of<I, O>(fn: (ctx: AgentContext, input: I) => O | Promise<O>): Step<I, O> {
    if (typeof fn !== 'function') throw new GraphDefinitionError('Steps.of(fn): fn must be a function (ctx, input) => output');
    return step(fn.name === '' ? `step-${++anonymous}` : fn.name, fn);
  },

  /**
   * The step, tried again when it throws: at most `retries` more attempts (so `retries + 1` in
   * all), then its last error fails the step. `WorkflowAbort` and `Steps.terminate` are not retried.
   */
  retrying<I, O>(retries: number, inner: Step<I, O>): Step<I, O> {
    if (!Number.isInteger(retries) || retries < 0) throw new GraphDefinitionError(`Steps.retrying(${String(retries)}, …): retries must be a whole number ≥ 0`);
    const wrapped: Step<I, O> = {
      ...inner,
      async execute(ctx, input) {
        for (let attempt = 0; ; attempt++) {
          try {
            return await inner.execute(ctx, input);
          } catch (error) {
            if (attempt >= retries || error instanceof WorkflowAbort || error instanceof WorkflowTermination || error instanceof SubWorkflowWaiting) throw error;
          }
        }
      },
    };
    return Object.freeze(wrapped);
  },

  /** The output an earlier step recorded in this run (its last one, in a loop); fails the step if it has not run. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  outputOf<O = unknown>(stepName: string): Step<any, O> {
    checkStepName(stepName, 'Steps.outputOf()');
    const made = step<unknown, O>(`output-of-${stepName}`, (ctx) => {
      if (!ctx.has(outputKeyOf(stepName))) {
        throw new WorkflowExecutionError(`Steps.outputOf("${stepName}"): step "${stepName}" has not run before this point; read the output of a step that runs earlier`, {
          code: 'node_failed',
          nodeId: `output-of-${stepName}`,
        });
      }
      return ctx.get(outputKeyOf(stepName)) as O;
    });
    return Object.freeze({ ...made, [READS_OUTPUT_OF]: stepName });
  },

  /** Ends the run here with `status` (default `completed`) and `message` as its output. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  terminate(status: TerminateStatus = 'completed', message = ''): Step<any, never> {
    if (status !== 'completed' && status !== 'aborted' && status !== 'failed') {
      throw new GraphDefinitionError(`Steps.terminate("${String(status)}"): status must be 'completed', 'aborted' or 'failed'`);
    }
    return step<unknown, never>(`terminate-${status}`, () => {
      throw new WorkflowTermination(status, message);
    });
  },
};
