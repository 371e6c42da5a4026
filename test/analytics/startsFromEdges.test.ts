import { describe, expect, it } from 'vitest';
import { END, StateGraph, TransitionRecorder, type HopEvent, type HopListener, type TraceRecorder, type TransitionRecord } from '../../src/index.js';

/** A recorder on the light path that lists the node.started events it is handed. */
function startsSeen(startsFromEdges: boolean): TraceRecorder & { starts: string[] } {
  const starts: string[] = [];
  const hops: HopListener = {
    startsFromEdges,
    hop(event: HopEvent) {
      if (event.type === 'node.started') starts.push(String(event.nodeId));
    },
  };
  return { starts, rawEvents: true, record: () => undefined, hops };
}

const loop = () =>
  new StateGraph({ name: 'starts', maxSteps: 10 })
    .addNode('a', (ctx) => {
      ctx.put('n', (ctx.get<number>('n') ?? 0) + 1);
      return { outputText: 'x', usage: { inputTokens: 1, outputTokens: 2 } };
    })
    .addNode('b', () => null)
    .start('a')
    .addEdge('a', 'b')
    .addConditionalEdges('b', (ctx) => ((ctx.get<number>('n') ?? 0) >= 3 ? END : 'a'));

const shape = (records: readonly TransitionRecord[]) => records.map((r) => `${r.from}>${r.to}:${r.label}:${r.nodeType}:${r.tokens}`);

describe('HopListener.startsFromEdges', () => {
  it('leaves out the node.started that follows an edge to its node when every light-path listener learns it from the edge', async () => {
    const skipping = startsSeen(true);
    await loop().run('go', { recorders: [skipping] });
    expect(skipping.starts).toEqual(['a']);
    // One listener that wants every start gets them all, for both.
    const wanting = startsSeen(false);
    const alongside = startsSeen(true);
    await loop().run('go', { recorders: [alongside, wanting] });
    expect(wanting.starts).toEqual(['a', 'b', 'a', 'b', 'a', 'b']);
    expect(alongside.starts).toEqual(wanting.starts);
  });

  it('a TransitionRecorder makes the same records with the starts left out as with them handed over', async () => {
    const alone = new TransitionRecorder();
    await loop().run('go', { recorders: [alone] });
    const beside = new TransitionRecorder();
    await loop().run('go', { recorders: [beside, startsSeen(false)] });
    expect(shape(alone.records)).toEqual(shape(beside.records));
    expect(shape(alone.records)).toEqual([
      '__start__>a:start:start:0',
      'a>b:transition[0]:node:3',
      'b>a:a:node:0',
      'a>b:transition[0]:node:3',
      'b>a:a:node:0',
      'a>b:transition[0]:node:3',
      'b>__end__:completed:__end__:node:0',
    ]);
  });
});
