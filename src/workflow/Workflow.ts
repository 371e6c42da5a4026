import { GraphDefinitionError } from '../errors/GraphDefinitionError.js';
import type { GraphMachine } from '../graph/compileMachine.js';
import type { WorkflowEvent } from '../graph/WorkflowEvent.js';
import type { ModelClient } from '../model/ModelClient.js';
import type { AgentContext } from './AgentContext.js';
import { BranchBuilder, DecisionBuilder, GateBuilder, LoopBuilder } from './FlowBuilders.js';
import type { Gate } from './Gate.js';
import { checkStepName, type Step } from './Step.js';
import type { ErrorHandler, ErrorMatcher, FlowPredicate, WorkflowBlock } from './WorkflowBlock.js';
import { compileWorkflow, type CompiledWorkflow } from './compileWorkflow.js';
import type { WorkflowGraph } from './WorkflowGraph.js';
import { workflowMachine } from './workflowMachine.js';
import { deadlineOptions, runWorkflow, streamWorkflow, toWorkflowResult, type WorkflowResult, type WorkflowRunOptions } from './runWorkflow.js';
import { watchDeadline } from './watchDeadline.js';
import { resumeRun } from '../graph/durable/resumeRun.js';
import { AS_GRAPH, type GraphSource, type RunnableGraph } from '../graph/RunnableGraph.js';
import { workflowAsGraph } from './workflowAsGraph.js';
import type { ResumeOptions } from '../graph/durable/DurableOptions.js';
import type { RunStore } from '../persistence/RunStore.js';
import type { PersonReply } from './personRouter.js';
import { CAN_WAIT, RUN_CHILD, runSubWorkflow, type ChildResume, type SubWorkflowOutcome } from './runSubWorkflow.js';
import type { StepScope } from './WorkflowLane.js';
import { stepSignal } from './stepSignal.js';
import { loopOf, parallelOf, supervisorOf, type LoopShortcut, type ParallelShortcut, type SupervisorShortcut } from './WorkflowShortcuts.js';

/**
 * A typed workflow of steps, compiled to a plain-data {@link WorkflowGraph} and from it to an
 * XState machine that runs on the same engine as a `StateGraph` (run options, stores, traces,
 * waits, recovery). `I` is the workflow's input, `O` the output of its last step so far: each
 * `then` must accept the previous output, which the compiler checks. A built workflow is itself a
 * `Step<I, O>` (a sub-workflow).
 *
 * @example
 * const wf = Workflow.define<string, number>('count')
 *   .step(step('trim', (_c, s: string) => s.trim()))
 *   .then(step('words', (_c, s: string) => s.split(/\s+/).length));
 * const run = await wf.run(' a b c '); // run.output === 3, run.path = ['trim', 'words']
 */
export class Workflow<I = unknown, O = unknown> implements Step<I, O>, GraphSource {
  readonly kind = 'deterministic' as const;
  readonly #blocks: WorkflowBlock[] = [];
  readonly #handlers: ErrorHandler[] = [];
  #budgetStep: Step | null = null;
  #compiled: CompiledWorkflow | null = null;
  #machine: GraphMachine | null = null;
  #graph: RunnableGraph | null = null;

  private constructor(readonly name: string) {}

  /** Starts a workflow definition; `I` is its input type (the output type follows from its steps). */
  static define<I>(name: string): Workflow<I, I> {
    return new Workflow<I, I>(checkStepName(name, 'Workflow.define()'));
  }

  /** `Workflow.sequential(name).step(a).then(b)`: steps one after another (the same as `define`). */
  static sequential<I>(name: string): Workflow<I, I> {
    return Workflow.define<I>(name);
  }

  /** `Workflow.loop(name).step(a).times(n)` or `.until(pred)`: the body repeated. */
  static loop<I>(name: string): LoopShortcut<I, I> {
    return loopOf<I>(name);
  }

  /** `Workflow.parallel(name).step(a, b, c)`: the same input to each, concurrently; the outputs in order. */
  static parallel<I>(name: string): ParallelShortcut<I> {
    return parallelOf<I>(name);
  }

  /** `Workflow.supervisor(name, model).agents(a, b).until(pred)`: the model picks the next agent each round until `pred(ctx, output)` holds. */
  static supervisor<I>(name: string, model: ModelClient): SupervisorShortcut<I> {
    return supervisorOf<I>(name, model);
  }

  /** The first step. */
  step<N>(step: Step<O, N>): Workflow<I, N> {
    return this.addBlock<N>({ type: 'step', step: checkStep(step, this.name) as Step });
  }

  /** The next step: it gets the previous step's output. */
  then<N>(step: Step<O, N>): Workflow<I, N> {
    return this.step(step);
  }

  /** A two-way branch on `pred(ctx, value)`: `.branch(p).then(a).otherwise(b)`. */
  branch(predicate: FlowPredicate<O>): BranchBuilder<I, O> {
    this.#open();
    if (typeof predicate !== 'function') throw new GraphDefinitionError(`workflow "${this.name}": branch(pred) needs a function (ctx, value) => boolean`);
    return new BranchBuilder(this, predicate);
  }

  /** Runs each step on the same input, concurrently; the output is their outputs in order. */
  gather<S extends readonly Step<O, unknown>[]>(...steps: S): Workflow<I, GatherOutputs<S>> {
    if (steps.length === 0) throw new GraphDefinitionError(`workflow "${this.name}": gather() needs at least one step`);
    return this.addBlock({ type: 'gather', steps: steps.map((s) => checkStep(s, this.name)) as Step[] });
  }

  /**
   * `parallel(s1, s2, …)`: runs each step on the same input concurrently; the input passes on
   * unchanged and the branches' context writes merge (the last to finish wins a conflict).
   * `parallel(itemsOf, stepFor)`: a step per item (`itemsOf(ctx, value)`), the outputs in order.
   */
  parallel(...steps: Step<O, unknown>[]): Workflow<I, O>;
  parallel<T, R>(itemsOf: (ctx: AgentContext, value: O) => T[] | Promise<T[]>, stepFor: (item: T, index: number) => Step<T, R>): Workflow<I, R[]>;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  parallel(...args: unknown[]): Workflow<I, any> {
    if (args.length === 2 && typeof args[0] === 'function' && typeof args[1] === 'function') {
      return this.addBlock({ type: 'fan-out', itemsOf: args[0] as never, stepFor: args[1] as never });
    }
    if (args.length === 0) throw new GraphDefinitionError(`workflow "${this.name}": parallel() needs steps, or (itemsOf, stepFor)`);
    return this.addBlock({ type: 'parallel', steps: args.map((s) => checkStep(s as Step, this.name)) });
  }

  /** A while-loop: before each pass `pred(ctx, value)` is checked; the body runs until it holds. */
  repeatUntil(predicate: FlowPredicate<O>): LoopBuilder<I, O, O> {
    this.#open();
    return new LoopBuilder(this, 'while', predicate as FlowPredicate);
  }

  /** A do-while loop: the body runs, then `pred(ctx, output)` is checked; it runs again until it holds. */
  repeatUntilOutput(predicate: FlowPredicate<O>): LoopBuilder<I, O, O> {
    this.#open();
    return new LoopBuilder(this, 'do', predicate as FlowPredicate);
  }

  /** The model picks one option by name (constrained to the names); that option's step runs. */
  decision(model: ModelClient, prompt?: string): DecisionBuilder<I, O> {
    this.#open();
    return new DecisionBuilder(this, model, prompt);
  }

  /** Judges the output so far: `.gate(g).onPass(a).onFail(b)…end()`. */
  gate(gate: Gate<O>): GateBuilder<I, O> {
    this.#open();
    if (gate === null || typeof gate !== 'object' || typeof gate.evaluate !== 'function') {
      throw new GraphDefinitionError(`workflow "${this.name}": gate(g) needs a Gate (an object with evaluate(ctx, output))`);
    }
    return new GateBuilder(this, gate);
  }

  /**
   * When a step throws an error of this class (or with this `code`), `recovery` runs with the failed
   * step's input (the error is in the context under `workflow.error`) and its output goes on.
   */
  onError(match: ErrorMatcher, recovery: Step): this {
    this.#open();
    if (typeof match !== 'function' && (typeof match !== 'string' || match === '')) {
      throw new GraphDefinitionError(`workflow "${this.name}": onError(match, …) takes an error class or a non-empty error code`);
    }
    this.#handlers.push({ match, recovery: checkStep(recovery, this.name) });
    return this;
  }

  /**
   * The step a run goes to when one of its budgets (`budget` in the run options) is spent, instead
   * of ending with status `budget-exceeded` — wherever it was spent (a step, a model call inside a
   * step, a branch, a fan-out item, a sub-workflow). The step gets the last completed step's output
   * as its input and finds `{ budget, limit, spent }` in the context under
   * `AgentContext.BUDGET_EXCEEDED`; its output is the run's output, and the run ends `completed`
   * (with `budgetExceeded` set), or waits when the step is a sub-workflow that asks a person. From
   * then on the budgets no longer stop the run, so the step can call a model. One per workflow.
   *
   * @example
   * Workflow.define<string>('answer').step(draft).then(polish)
   *   .onBudgetExceeded(step('apologise', (ctx) => `Sorry, ${ctx.require(AgentContext.BUDGET_EXCEEDED).budget} ran out`));
   */
  onBudgetExceeded(handler: Step): this {
    this.#open();
    if (this.#budgetStep !== null) throw new GraphDefinitionError(`workflow "${this.name}": onBudgetExceeded() was already given step "${this.#budgetStep.name}"; a workflow has one`);
    this.#budgetStep = checkStep(handler, this.name);
    return this;
  }

  /** @internal adds a block (used by the builders). */
  addBlock<N>(block: WorkflowBlock): Workflow<I, N> {
    this.#open();
    this.#blocks.push(block);
    return this as unknown as Workflow<I, N>;
  }

  /** The workflow as plain data: nodes, edges, start and finish. */
  compile(): WorkflowGraph {
    return this.#compile().graph;
  }

  /**
   * The XState machine compiled from {@link compile}'s graph; its input is `{ input, runId?, context?, maxIterations? }`.
   * Started with plain `createActor`, it has no budgets (they need the run around it: use {@link run}); a `budget` in its input is refused.
   */
  toMachine(): GraphMachine {
    this.#machine ??= workflowMachine(this.#compile());
    return this.#machine;
  }

  /** Ends the definition: the workflow can no longer change, and can be used as a step of another. */
  build(): Workflow<I, O> {
    this.#compile();
    this.#built = true;
    return this;
  }

  /** Runs the workflow to its end (or a wait) and resolves with the result; failures are in `status` and `error`. */
  run(input: I, options: WorkflowRunOptions = {}): Promise<WorkflowResult<O>> {
    return runWorkflow(this.#compile(), this.toMachine(), input, options) as Promise<WorkflowResult<O>>;
  }

  /**
   * Continues a run that waits for a person (a gate's decision: `{ decision: 'PASS' | 'FAIL' |
   * 'TIMEOUT', text? }`), or, with no reply, a stored run that was interrupted. With `store`, in any
   * process; without, in the process that started it.
   */
  async resume(runId: string, reply?: PersonReply, options: Omit<ResumeOptions, 'store'> & { store?: RunStore } = {}): Promise<WorkflowResult<O>> {
    const run = await resumeRun(this.toMachine(), runId, reply === undefined ? undefined : { reply }, options);
    if (run.status === 'waiting') void watchDeadline(this.#compile(), this.toMachine(), runId, deadlineOptions(options)).catch(() => undefined);
    return toWorkflowResult<O>(run);
  }

  /** Runs the workflow and yields its events; the last one is `run.completed`. */
  stream(input: I, options: WorkflowRunOptions = {}): AsyncIterable<WorkflowEvent> {
    return streamWorkflow(this.#compile(), this.toMachine(), input, options);
  }

  /**
   * The workflow as a graph (`RunnableGraph`): what a `RunManager`, the workbench and the CLI run it
   * by. A workflow can be registered wherever graphs are (a graphs module's `graphs`, `startServer`,
   * `RunManager`, `recoverRuns`) without calling this; text input is the workflow's input and the
   * run resolves to the engine's `WorkflowRun` (the output as `result.handoff`, shown as `outputText`).
   */
  asGraph(): RunnableGraph {
    this.#graph ??= workflowAsGraph(this.name, () => this.toMachine(), () => this.#compile());
    return this.#graph;
  }

  /** @internal the graph view the engine's registries use (see {@link asGraph}). */
  [AS_GRAPH](): RunnableGraph {
    return this.asGraph();
  }

  /**
   * As a step of another workflow: runs as a child machine with the parent's context; its final
   * context is merged back. Called from a step's own code, it is cancelled with that step (`ctx.signal`).
   */
  async execute(ctx: AgentContext, input: I): Promise<O> {
    return (await runSubWorkflow(this, ctx, input, undefined, undefined, stepSignal(ctx))).output as O;
  }

  /** @internal how the engine runs this workflow as a step: output and final context. */
  [RUN_CHILD](ctx: AgentContext, input: unknown, scope?: StepScope, resume?: ChildResume): Promise<SubWorkflowOutcome> {
    return runSubWorkflow(this, ctx, input, scope, resume, scope?.signal);
  }

  /**
   * @internal whether a run of this workflow can wait for a person (then a parent waits with it): a
   * gate that asks one, a sub-workflow or fork branch that can, or a fan-out (its items are known
   * only when it runs, and any of them may be a sub-workflow that waits).
   */
  [CAN_WAIT](): boolean {
    for (const rt of this.#compile().runtime.values()) if (rt.type === 'person' || rt.type === 'sub-wait' || (rt.type === 'fork' && rt.canWait) || rt.type === 'fan-out') return true;
    return false;
  }

  #built = false;

  #open(): void {
    if (this.#built) throw new GraphDefinitionError(`workflow "${this.name}" was built; define a new workflow to change it`);
    this.#compiled = null;
    this.#machine = null;
  }

  #compile(): CompiledWorkflow {
    if (this.#blocks.length === 0) throw new GraphDefinitionError(`workflow "${this.name}" has no steps; add one with step()`);
    if (this.#compiled !== null) return this.#compiled;
    // A workflow that is its own step (at any depth) would compile, and run, without end.
    const at = compiling.indexOf(this);
    if (at !== -1) throw selfContaining([...compiling.slice(at).map((w) => w.name), this.name]);
    compiling.push(this);
    try {
      const compiled = compileWorkflow(this.name, this.#blocks, this.#handlers, this.#budgetStep);
      const cycle = this.#pathTo(compiled, this, new Set());
      if (cycle !== null) throw selfContaining([this.name, ...cycle]);
      this.#compiled = compiled;
      return compiled;
    } finally {
      compiling.pop();
    }
  }

  /** The names from `compiled`'s sub-workflows down to `target` (a built one is read as it was compiled), or null. */
  #pathTo(compiled: CompiledWorkflow, target: object, seen: Set<object>): string[] | null {
    for (const sub of compiled.subWorkflows.values()) {
      if (!(sub instanceof Workflow) || seen.has(sub)) continue;
      if (sub === target) return [sub.name];
      seen.add(sub);
      const below = sub.#pathTo(sub.#compile(), target, seen);
      if (below !== null) return [sub.name, ...below];
    }
    return null;
  }
}

/** Workflows whose compile is under way, outermost first: one reached again while it compiles contains itself. */
const compiling: Array<{ readonly name: string }> = [];

function selfContaining(path: string[]): GraphDefinitionError {
  return new GraphDefinitionError(`workflow "${path[0]}" contains itself: ${path.join(' > ')}; a workflow cannot be a step of itself at any depth (use repeatUntil for a loop)`);
}

/** The outputs of `gather(s1, s2, …)`, in order. */
export type GatherOutputs<S extends readonly unknown[]> = { -readonly [K in keyof S]: S[K] extends Step<infer _I, infer R> ? R : never };

function checkStep<S extends Step>(step: S, workflow: string): S {
  if (step === null || typeof step !== 'object' || typeof step.execute !== 'function') {
    throw new GraphDefinitionError(`workflow "${workflow}": a step must be an object with a name and execute(ctx, input); make one with step(name, fn)`);
  }
  checkStepName(step.name, `workflow "${workflow}"`);
  return step;
}
