import { assign, createActor, fromPromise, setup, toPromise } from 'xstate';
import type { ImplementationFactory } from './Implementation.js';

interface Context {
  count: number;
  steps: number;
  maxSteps: number;
}
/** One guarded hop out of a node's routing state; `to: null` ends the run. */
interface Hop {
  to: string | null;
  when?: (context: Context) => boolean;
}

/**
 * The hand-written machine of the shape Switchboard compiles to (see NOTES.md): each node state
 * invokes a `fromPromise` actor; `onDone` assigns the result into context and moves to a routing
 * state whose guarded `always` transitions pick the next node, behind a step-count fuse.
 */
function bareMachine(first: string, hops: Record<string, Hop[]>, maxSteps: number) {
  const states: Record<string, object> = {};
  for (const [id, out] of Object.entries(hops)) {
    const always: object[] = [{ guard: 'fuseSpent', target: '#bare.maxSteps' }];
    for (const hop of out) {
      const target = hop.to === null ? '#bare.done' : `#bare.${hop.to}`;
      const when = hop.when;
      always.push(when === undefined ? { target } : { guard: ({ context }: { context: Context }) => when(context), target });
    }
    states[id] = {
      initial: 'running',
      states: {
        running: {
          invoke: {
            id,
            src: 'body',
            input: ({ context }: { context: Context }) => ({ count: context.count }),
            onDone: { target: 'routing', actions: 'record' },
            onError: { target: '#bare.failed' },
          },
        },
        routing: { always },
      },
    };
  }
  states['done'] = { type: 'final' };
  states['maxSteps'] = { type: 'final' };
  states['failed'] = { type: 'final' };

  return setup({
    types: { context: {} as Context, output: {} as number },
    actors: { body: fromPromise<number, { count: number }>(async ({ input }) => input.count + 1) },
    actions: {
      record: assign({
        count: ({ event }) => (event as unknown as { output: number }).output,
        steps: ({ context }) => context.steps + 1,
      }),
    },
    guards: { fuseSpent: ({ context }) => context.steps >= context.maxSteps },
  }).createMachine({
    id: 'bare',
    context: { count: 0, steps: 0, maxSteps },
    initial: first,
    // Built from data, like Switchboard's compiled machine; XState cannot type a config it has not seen.
    states: states as never,
    output: ({ context }) => context.count,
  });
}

/** The bare XState v5 baseline: the same graph shape with no engine around it. */
export const bareXState: ImplementationFactory = ({ loopSteps, chainLength }) => {
  const notDone = (context: Context) => context.count < loopSteps;
  const loopMachine = bareMachine(
    'a',
    {
      a: [{ to: 'b', when: notDone }, { to: null }],
      b: [{ to: 'a', when: notDone }, { to: null }],
    },
    loopSteps,
  );
  const chainHops: Record<string, Hop[]> = {};
  for (let i = 1; i <= chainLength; i++) chainHops[`n${i}`] = [{ to: i < chainLength ? `n${i + 1}` : null }];
  const chainMachine = bareMachine('n1', chainHops, chainLength);

  return {
    name: 'bare XState v5',
    loop: () => toPromise(createActor(loopMachine).start()),
    chain: () => toPromise(createActor(chainMachine).start()),
  };
};
