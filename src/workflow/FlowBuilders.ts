import { GraphDefinitionError } from '../errors/GraphDefinitionError.js';
import type { ModelClient } from '../model/ModelClient.js';
import type { Gate } from './Gate.js';
import type { Step } from './Step.js';
import type { FlowPredicate, WorkflowBlock } from './WorkflowBlock.js';
import type { Workflow } from './Workflow.js';

type GateBlock = Extract<WorkflowBlock, { type: 'gate' }>;

/** `branch(pred).then(a)`: the step taken when the predicate holds. */
export class BranchBuilder<I, C> {
  constructor(
    private readonly owner: Workflow<I, C>,
    private readonly predicate: FlowPredicate<C>,
  ) {}

  /** The step taken when the predicate holds. */
  then<A>(step: Step<C, A>): BranchOtherwise<I, C, A> {
    return new BranchOtherwise(this.owner, this.predicate, step);
  }
}

/** `…otherwise(b)`: the step taken when the predicate does not hold; both arms must output the same type. */
export class BranchOtherwise<I, C, A> {
  constructor(
    private readonly owner: Workflow<I, C>,
    private readonly predicate: FlowPredicate<C>,
    private readonly yes: Step<C, A>,
  ) {}

  /** The step taken when the predicate does not hold. */
  otherwise<B>(step: Step<C, B>): Workflow<I, A | B> {
    return this.owner.addBlock<A | B>({
      type: 'branch',
      predicate: this.predicate as FlowPredicate,
      then: [{ type: 'step', step: this.yes as Step }],
      otherwise: [{ type: 'step', step: step as Step }],
    });
  }
}

/** The body of `repeatUntil` / `repeatUntilOutput`: steps chained with `step` / `then`, closed by `end()`. */
export class LoopBuilder<I, C, B> {
  readonly #body: WorkflowBlock[] = [];

  /** `times`: the body runs exactly that many times (see `Workflow.loop(name).times(n)`); the predicate is then not called. */
  constructor(
    private readonly owner: Workflow<I, C>,
    private readonly mode: 'while' | 'do',
    private readonly predicate: FlowPredicate,
    private readonly times?: number,
  ) {}

  /** Adds a step to the loop's body. */
  step<N>(step: Step<B, N>): LoopBuilder<I, C, N> {
    this.#body.push({ type: 'step', step: step as Step });
    return this as unknown as LoopBuilder<I, C, N>;
  }

  /** Same as {@link step}. */
  then<N>(step: Step<B, N>): LoopBuilder<I, C, N> {
    return this.step(step);
  }

  /** Closes the loop; the workflow goes on with the loop's last value. */
  end(): Workflow<I, B> {
    if (this.#body.length === 0) throw new GraphDefinitionError(`workflow "${this.owner.name}": a loop needs at least one step before end()`);
    const block: WorkflowBlock = { type: 'loop', mode: this.mode, predicate: this.predicate, body: this.#body };
    if (this.times !== undefined) block.times = this.times;
    return this.owner.addBlock<B>(block);
  }
}

/** `decision(model).option('a', stepA)…end()`: the model picks one option by name. */
export class DecisionBuilder<I, C, O = never> {
  readonly #options: Array<{ name: string; step: Step }> = [];

  constructor(
    private readonly owner: Workflow<I, C>,
    private readonly model: ModelClient,
    private readonly prompt: string | undefined,
  ) {}

  /** An option the model may pick, and the step it leads to. */
  option<N>(name: string, step: Step<C, N>): DecisionBuilder<I, C, O | N> {
    if (typeof name !== 'string' || name.trim() === '') throw new GraphDefinitionError('decision().option(name, step): name must be a non-blank string');
    if (this.#options.some((o) => o.name === name)) throw new GraphDefinitionError(`decision().option("${name}"): option names must be unique`);
    this.#options.push({ name, step: step as Step });
    return this as unknown as DecisionBuilder<I, C, O | N>;
  }

  /** Closes the decision. */
  end(): Workflow<I, O> {
    if (this.#options.length === 0) throw new GraphDefinitionError(`workflow "${this.owner.name}": a decision needs at least one option()`);
    return this.owner.addBlock<O>({ type: 'decision', model: this.model, ...(this.prompt === undefined ? {} : { prompt: this.prompt }), options: this.#options });
  }
}

/** `gate(g).onPass(a).onFail(b).onEscalate(c).onTimeout(d).withReflector(r).maxRetries(n).end()`. */
export class GateBuilder<I, C> {
  readonly #block: GateBlock;

  constructor(
    private readonly owner: Workflow<I, C>,
    gate: Gate<C>,
  ) {
    this.#block = { type: 'gate', gate: gate as Gate, onPass: null, onFail: null, onEscalate: null, onTimeout: null, reflector: null, maxRetries: 3 };
  }

  /** The step after a pass (default: the output goes on unchanged). */
  onPass(step: Step<C, C>): this {
    this.#block.onPass = step as Step;
    return this;
  }

  /** The revising step after a fail (it gets the failed output; the verdict and feedback are in the context); the gate judges its output again. */
  onFail(step: Step<C, C>): this {
    this.#block.onFail = step as Step;
    return this;
  }

  /** The step after an escalation (without it, the run waits for a person). */
  onEscalate(step: Step<C, C>): this {
    this.#block.onEscalate = step as Step;
    return this;
  }

  /** The step after a timeout (a `HumanGate` whose deadline passed). */
  onTimeout(step: Step<C, C>): this {
    this.#block.onTimeout = step as Step;
    return this;
  }

  /** Turns a failed verdict into feedback text, written to `JUDGE_REFLECTION` before `onFail` runs. */
  withReflector(step: Step<unknown, string>): this {
    this.#block.reflector = step as Step;
    return this;
  }

  /** How many times `onFail` may run before a fail is treated as an escalation (default 3). */
  maxRetries(n: number): this {
    if (!Number.isInteger(n) || n < 0) throw new GraphDefinitionError(`gate().maxRetries(${String(n)}): use a whole number ≥ 0`);
    this.#block.maxRetries = n;
    return this;
  }

  /** Closes the gate. */
  end(): Workflow<I, C> {
    return this.owner.addBlock<C>(this.#block);
  }
}
