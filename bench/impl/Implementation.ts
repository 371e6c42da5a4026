/** The shapes every implementation builds once and then runs many times. */
export interface Workload {
  /** Node executions in the 2-node loop (a → b → a …); both routers end the run when the counter reaches it. */
  loopSteps: number;
  /** Nodes in the straight chain (n1 → n2 → … → END). */
  chainLength: number;
}

/**
 * One engine under test. Every node body does the same trivial work: it reads a counter from the
 * state and writes it back plus one. Both methods resolve with the final counter, so the harness
 * can check that every engine did exactly the same number of node executions.
 */
export interface Implementation {
  readonly name: string;
  /** One run of the 2-node loop, to the counter-based end. */
  loop(): Promise<number>;
  /** One run of the chain. */
  chain(): Promise<number>;
}

/** Builds an implementation for a workload (graphs and machines are compiled here, once). */
export type ImplementationFactory = (workload: Workload) => Implementation;
