import type { AgentContext } from './AgentContext.js';
import type { Gate } from './Gate.js';
import type { Step } from './Step.js';
import type { ModelClient } from '../model/ModelClient.js';

/** A predicate on the context and the value flowing at that point. */
export type FlowPredicate<T = unknown> = (ctx: AgentContext, value: T) => boolean | Promise<boolean>;

/** What `onError` matches: an error class, or an error `code` (a SwitchboardError's, or any `code` property). */
export type ErrorMatcher = (abstract new (...args: never[]) => Error) | string;

/** A recovery registered with `onError`. */
export interface ErrorHandler {
  match: ErrorMatcher;
  recovery: Step;
}

/** One piece of a workflow as the builder records it, before it is compiled to a graph. */
export type WorkflowBlock =
  | { type: 'step'; step: Step }
  | { type: 'branch'; predicate: FlowPredicate; then: WorkflowBlock[]; otherwise: WorkflowBlock[] }
  | { type: 'gather'; steps: Step[] }
  | { type: 'parallel'; steps: Step[] }
  | { type: 'fan-out'; itemsOf: (ctx: AgentContext, input: unknown) => unknown[] | Promise<unknown[]>; stepFor: (item: unknown, index: number) => Step }
  /** `times`: a `times(n)` loop, which ends after its own n passes (its predicate is not called) and is not counted by the loop fuse. */
  | { type: 'loop'; mode: 'while' | 'do'; predicate: FlowPredicate; body: WorkflowBlock[]; times?: number }
  | { type: 'decision'; model: ModelClient; prompt?: string; options: Array<{ name: string; step: Step }> }
  | {
      type: 'gate';
      gate: Gate;
      onPass: Step | null;
      onFail: Step | null;
      onEscalate: Step | null;
      onTimeout: Step | null;
      reflector: Step | null;
      maxRetries: number;
    };
