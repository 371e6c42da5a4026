import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { SharedState, SqliteRunStore, StateGraph, StateValidationError, type WorkflowEvent, type WorkflowRun } from '../../src/index.js';

describe('cancellation', () => {
  it('aborts the running node signal and ends the run cancelled', async () => {
    const controller = new AbortController();
    let nodeSignal: AbortSignal | undefined;
    const graph = new StateGraph()
      .addNode('first', () => 'one')
      .addNode('wait', (ctx) => {
        nodeSignal = ctx.signal;
        setTimeout(() => controller.abort(), 5);
        return new Promise(() => {});
      })
      .addNode('never', () => 'never')
      .start('first')
      .addEdge('first', 'wait')
      .addEdge('wait', 'never');
    const events: WorkflowEvent[] = [];
    const run = await graph.run('x', { signal: controller.signal, onEvent: (e) => events.push(e) });
    expect(run.status).toBe('cancelled');
    expect(nodeSignal?.aborted).toBe(true);
    expect(run.path).toEqual(['first', 'wait']);
    expect(run.steps).toBe(2);
    expect(run.outputText).toBe('one');
    expect(events.map((e) => e.type)).toContain('node.cancelled');
    expect(events.find((e) => e.type === 'node.cancelled')).toMatchObject({ nodeId: 'wait', step: 2 });
  });

  it('gives a node that first reads its signal after the cancel an aborted one, and drops its late result', async () => {
    const controller = new AbortController();
    let release: () => void = () => {};
    const late = new Promise<void>((resolve) => (release = resolve));
    let seen: boolean | undefined;
    const graph = new StateGraph()
      .addNode('slow', async (ctx) => {
        controller.abort();
        await late;
        seen = ctx.signal.aborted;
        return 'too late';
      })
      .addNode('never', () => 'never')
      .start('slow')
      .addEdge('slow', 'never');
    const run = await graph.run('x', { signal: controller.signal });
    release();
    await new Promise((resolve) => setImmediate(resolve));
    expect(run.status).toBe('cancelled');
    expect(seen).toBe(true);
    expect(run.path).toEqual(['slow']);
    expect(run.outputText).toBeNull();
  });

  it('runs nothing when the signal is already aborted', async () => {
    let ran = false;
    const graph = new StateGraph().addNode('a', () => {
      ran = true;
      return 'a';
    }).start('a');
    const run = await graph.run('x', { signal: AbortSignal.abort() });
    expect(run.status).toBe('cancelled');
    expect(run.path).toEqual([]);
    expect(ran).toBe(false);
  });

  it('returns a run cancelled before it started with its state as a SharedState checked by the graph\'s declared state, as a run that ended does', async () => {
    const graph = new StateGraph({ name: 'typed', state: { count: z.number(), tags: z.array(z.string()) } })
      .addNode('a', (ctx) => (ctx.put('count', 2), 'a'))
      .start('a');
    const store = new SqliteRunStore({ file: join(mkdtempSync(join(tmpdir(), 'sb-cancelled-state-')), 'runs.db') });
    const initial = { count: 1, tags: ['x'] };
    const runs: Array<[string, WorkflowRun]> = [
      ['ended', await graph.run('x', { state: initial })],
      ['cancelled before start', await graph.run('x', { state: initial, signal: AbortSignal.abort() })],
      ['stored, cancelled before start', await graph.run('x', { state: initial, signal: AbortSignal.abort(), store })],
    ];
    await store.close();
    const model = (runs[0]![1].state as SharedState).model;
    expect(model.typed).toBe(true);
    for (const [what, run] of runs) {
      expect(run.state, what).toBeInstanceOf(SharedState);
      expect((run.state as SharedState).model, what).toBe(model);
      expect(run.state.get('tags'), what).toEqual(['x']);
      expect(Object.isFrozen(run.state.get('tags')), what).toBe(true);
      // The declared state checks a write to the returned map too.
      expect(() => run.state.set('count', 'three'), what).toThrow(StateValidationError);
      expect(() => run.state.set('undeclared', 1), what).toThrow(StateValidationError);
    }
    expect(runs.slice(1).map(([, run]) => [run.status, run.state.get('count')])).toEqual([['cancelled', 1], ['cancelled', 1]]);
  });
});
