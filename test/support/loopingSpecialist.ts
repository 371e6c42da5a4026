import { Coordinator, END, StateGraph, type RunStore } from '../../src/index.js';

/**
 * A `desk` graph whose coordinator runs one `tool` specialist going round plan ↔ act, held inside
 * its second act until `release()`: while it is held, the specialist's stored records go round a
 * loop no run has left for an end, while desk's own are whole up to its dispatch.
 * `inLoop(store, runId)` resolves once the specialist's second act is in the store.
 */
export function loopingSpecialist() {
  let release: () => void = () => {};
  let acts = 0;
  const tool = new StateGraph({ name: 'tool' })
    .addNode('plan', () => 'plan')
    .addNode('act', () => {
      acts += 1;
      if (acts < 2) return 'again';
      return new Promise<string>((resolve) => (release = () => resolve('done')));
    })
    .start('plan')
    .addEdge('plan', 'act')
    .addConditionalEdges('act', () => (acts < 2 ? 'again' : 'done'), { again: 'plan', done: END });
  const coordinator = new Coordinator({ specialists: { tool } });
  const desk = new StateGraph({ name: 'desk' })
    .addNode('split', coordinator.planNode(() => [{ kind: 'tool', input: 'go' }]))
    .addNode('dispatch', coordinator.dispatchNode())
    .start('split')
    .addEdge('split', 'dispatch');
  const inLoop = async (store: RunStore, runId: string) => {
    const actsStored = async () => (await store.listEvents(runId, {})).filter((e) => e.type === 'node.started' && (e.data as { nodeId?: string }).nodeId === 'act').length;
    while ((await actsStored()) < 2) await new Promise((resolve) => setImmediate(resolve));
  };
  return { desk, tool, inLoop, release: () => release() };
}
