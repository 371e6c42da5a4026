import { describe, expect, it } from 'vitest';
import { END, StateGraph, TransitionRecorder, type HopEvent, type HopListener, type TraceRecorder } from '../../src/index.js';

/** A recorder on the light path that lists what it is handed: events by type, steps as `from>to:kind[index]:routeKey:durationMs`. */
function listing(withSteps: boolean): TraceRecorder & { seen: string[] } {
  const seen: string[] = [];
  const hops: HopListener = {
    startsFromEdges: true,
    hop(event: HopEvent) {
      seen.push(event.type === 'edge.traversed' ? `edge ${String(event.from)}>${String(event.to)}` : `${event.type} ${String(event.nodeId ?? '')}`);
    },
    ...(withSteps
      ? {
          step(_runId: string, _path: string, nodeId: string, at: number, durationMs: number, result: unknown, to: string, kind: string, index: number, routeKey: string | undefined) {
            seen.push(`step ${nodeId}>${to}:${kind}[${index}]:${String(routeKey)}:${durationMs}@${at}:${JSON.stringify(result)}`);
          },
        }
      : {}),
  };
  return { seen, rawEvents: true, record: () => undefined, hops };
}

/** A clock the nodes move, so durations and times are known. */
const clock = { t: 100, now: () => clock.t };

const loop = () =>
  new StateGraph({ name: 'steps', maxSteps: 10 })
    .addNode('a', (ctx) => {
      clock.t += 5;
      ctx.put('n', (ctx.get<number>('n') ?? 0) + 1);
      return { outputText: 'x' };
    })
    .addNode('b', () => {
      clock.t += 2;
      return null;
    })
    .start('a')
    .addEdge('a', 'b')
    .addConditionalEdges('b', (ctx) => ((ctx.get<number>('n') ?? 0) >= 2 ? END : 'a'));

const types = (seen: readonly string[]) => seen.map((line) => line.split(' ')[0]);

describe('HopListener.step', () => {
  it("hands a step's completion and its edge to another node in one call; the first start, an edge to the end and the run's own events go to hop", async () => {
    clock.t = 100;
    const recorder = listing(true);
    await loop().run('go', { recorders: [recorder], clock });
    expect(recorder.seen).toEqual([
      'run.started ',
      'node.started a',
      'step a>b:transition[0]:undefined:5@105:{"outputText":"x"}',
      'step b>a:conditional[0]:a:2@107:null',
      'step a>b:transition[0]:undefined:5@112:{"outputText":"x"}',
      'node.completed b',
      'edge b>__end__',
      'run.completed ',
    ]);
  });

  it('goes to hop as separate events when a listener on the light path has no step, for every listener', async () => {
    clock.t = 100;
    const stepping = listing(true);
    const plain = listing(false);
    await loop().run('go', { recorders: [stepping, plain], clock });
    expect(types(plain.seen)).not.toContain('step');
    expect(plain.seen).toContain('edge a>b');
    expect(stepping.seen).toEqual(plain.seen);
  });

  it('a TransitionRecorder makes the same records from steps as from separate events', async () => {
    clock.t = 100;
    const fromSteps = new TransitionRecorder();
    await loop().run('go', { recorders: [fromSteps], clock });
    clock.t = 100;
    const fromEvents = new TransitionRecorder();
    await loop().run('go', { recorders: [fromEvents, listing(false)], clock });
    const strip = (r: { runId: string }) => ({ ...r, runId: '' });
    expect(fromSteps.records.map(strip)).toEqual(fromEvents.records.map(strip));
    expect(fromSteps.records.map((r) => `${r.from}>${r.to}:${r.label}:${r.durationMs}@${r.at}`)).toEqual([
      '__start__>a:start:0@100',
      'a>b:transition[0]:5@105',
      'b>a:a:2@107',
      'a>b:transition[0]:5@112',
      'b>__end__:completed:__end__:2@114',
    ]);
  });
});
