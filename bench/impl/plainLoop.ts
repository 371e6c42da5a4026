import type { ImplementationFactory } from './Implementation.js';

interface State {
  count: number;
}
type Body = (state: State) => Promise<State>;

/** The floor: an async while loop that awaits each node body and routes with plain code. */
export const plainLoop: ImplementationFactory = ({ loopSteps, chainLength }) => {
  const increment: Body = async (state) => ({ count: state.count + 1 });

  async function run(first: string, bodies: Record<string, Body>, next: (node: string, state: State) => string | null, maxSteps: number) {
    let state: State = { count: 0 };
    let node: string | null = first;
    let steps = 0;
    while (node !== null && steps < maxSteps) {
      const body: Body | undefined = bodies[node];
      if (body === undefined) throw new Error(`unknown node ${node}`);
      state = await body(state);
      steps += 1;
      node = next(node, state);
    }
    return state.count;
  }

  const loopBodies = { a: increment, b: increment };
  const loopNext = (node: string, state: State) => (state.count >= loopSteps ? null : node === 'a' ? 'b' : 'a');
  const chainIds = Array.from({ length: chainLength }, (_, i) => `n${i + 1}`);
  const chainBodies = Object.fromEntries(chainIds.map((id) => [id, increment]));
  const chainNext = (node: string) => chainIds[chainIds.indexOf(node) + 1] ?? null;

  return {
    name: 'plain async loop',
    loop: () => run('a', loopBodies, loopNext, loopSteps),
    chain: () => run('n1', chainBodies, chainNext, chainLength),
  };
};
