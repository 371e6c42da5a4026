import { END, StateGraph } from '../../src/index.js';

/**
 * a → gate → after → END, where `gate` waits until `release()`: `inNode` resolves once the run is
 * inside it.
 */
export function gateGraph(name: string) {
  let release: () => void = () => {};
  let markStarted: () => void = () => {};
  const inNode = new Promise<void>((resolve) => (markStarted = resolve));
  const graph = new StateGraph({ name })
    .addNode('a', () => 'one')
    .addNode('gate', () => new Promise<string>((resolve) => ((release = () => resolve('through')), markStarted())))
    .addNode('after', () => 'after')
    .start('a')
    .addEdge('a', 'gate')
    .addEdge('gate', 'after')
    .addEdge('after', END);
  return { graph, inNode, release: () => release() };
}
