import { GraphDefinitionError } from '../errors/GraphDefinitionError.js';
import type { ModelClient } from '../model/ModelClient.js';
import { LoopBuilder } from './FlowBuilders.js';
import type { Step } from './Step.js';
import type { FlowPredicate } from './WorkflowBlock.js';
import { Workflow, type GatherOutputs } from './Workflow.js';

/** `Workflow.loop(name)`: collect the body with `step`, then `times(n)` or `until(pred)`. */
export class LoopShortcut<I, C> {
  readonly #body: Step[] = [];
  constructor(readonly name: string) {}

  /** Adds a step to the body. */
  step<N>(step: Step<C, N>): LoopShortcut<I, N> {
    this.#body.push(step as Step);
    return this as unknown as LoopShortcut<I, N>;
  }

  /**
   * The body runs exactly `n` times (a while-loop on its own pass count, which `ITERATION_COUNT`
   * shows). Its passes are not counted by the run's loop fuse (`maxIterations`, default 100): `n`
   * already bounds them, so `times(500)` runs 500 passes without raising `maxIterations`, and the
   * fuse is left whole for the loops that end on a condition (a `repeatUntil` around it, say).
   */
  times(n: number): Workflow<I, C> {
    if (!Number.isInteger(n) || n < 0) throw new GraphDefinitionError(`Workflow.loop("${this.name}").times(${String(n)}): use a whole number ≥ 0`);
    return this.#close(new LoopBuilder<I, I, I>(Workflow.define<I>(this.name), 'while', () => false, n));
  }

  /** The body runs, then again until `pred(ctx, output)` holds (a do-while loop). */
  until(predicate: FlowPredicate<C>): Workflow<I, C> {
    return this.#close(Workflow.define<I>(this.name).repeatUntilOutput(predicate as unknown as FlowPredicate<I>));
  }

  #close(loop: { step(s: Step<never, unknown>): unknown }): Workflow<I, C> {
    if (this.#body.length === 0) throw new GraphDefinitionError(`Workflow.loop("${this.name}"): add the body with step() first`);
    let builder = loop as { step(s: Step): typeof builder; end?(): Workflow<I, C> };
    for (const s of this.#body) builder = builder.step(s);
    return builder.end!();
  }
}

/** `Workflow.parallel(name).step(a, b, c)`. */
export class ParallelShortcut<I> {
  constructor(readonly name: string) {}

  /** The branches: each gets the input; the output is their outputs in order. */
  step<S extends readonly Step<I, unknown>[]>(...steps: S): Workflow<I, GatherOutputs<S>> {
    return Workflow.define<I>(this.name).gather(...steps) as unknown as Workflow<I, GatherOutputs<S>>;
  }
}

/** `Workflow.supervisor(name, model).agents(a, b).until(pred)`. */
export class SupervisorShortcut<I> {
  #agents: Step[] = [];
  constructor(
    readonly name: string,
    private readonly model: ModelClient,
  ) {}

  /** The agents (steps) the model chooses among each round. */
  agents(...agents: Step<I, I>[]): this {
    if (agents.length === 0) throw new GraphDefinitionError(`Workflow.supervisor("${this.name}").agents(): give at least one agent step`);
    this.#agents = agents as Step[];
    return this;
  }

  /** Rounds go on until `pred(ctx, output)` holds (checked after each round; the loop fuse applies). */
  until(predicate: FlowPredicate<I>): Workflow<I, I> {
    if (this.#agents.length === 0) throw new GraphDefinitionError(`Workflow.supervisor("${this.name}"): call agents(...) before until()`);
    let round = Workflow.define<I>(`${this.name}-round`).decision(this.model, `You supervise ${this.#agents.map((a) => a.name).join(', ')}. Pick the agent that should act next.`);
    for (const agent of this.#agents) round = round.option(agent.name, agent as Step<I, never>) as typeof round;
    const body = round.end().build() as unknown as Step<I, I>;
    return Workflow.define<I>(this.name).repeatUntilOutput(predicate).step(body).end();
  }
}

/** Makes the loop shortcut. */
export const loopOf = <I>(name: string): LoopShortcut<I, I> => new LoopShortcut<I, I>(name);
/** Makes the parallel shortcut. */
export const parallelOf = <I>(name: string): ParallelShortcut<I> => new ParallelShortcut<I>(name);
/** Makes the supervisor shortcut. */
export const supervisorOf = <I>(name: string, model: ModelClient): SupervisorShortcut<I> => new SupervisorShortcut<I>(name, model);
