import { describe, expect, it } from 'vitest';
import { Coordinator, StateGraph, type TaskResult } from '../../src/index.js';
import { planDispatchGraph } from '../support/planDispatchGraph.js';

const specialist = () => new StateGraph({ name: 'rag' }).addNode('work', (_ctx, request) => `rag answered ${String(request.input)}`).start('work');

/** Names every object has through its prototype, none of them a specialist here. */
const inherited = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf'];

describe('coordinator task kinds an object inherits', () => {
  it.each(inherited)('planNode refuses a task of kind "%s" as invalid_tasks naming the known kinds', async (kind) => {
    const coordinator = new Coordinator({ specialists: { rag: specialist() } });
    const graph = planDispatchGraph(coordinator, coordinator.planNode(() => [{ kind: 'rag', input: 'a' }, { kind, input: 'b' }]));
    const run = await graph.run('x');
    expect(run.status).toBe('failed');
    expect(run.path).toEqual(['plan']);
    expect(run.error).toMatchObject({ code: 'invalid_tasks', message: `coordinator task kind "${kind}" has no specialist; known kinds: rag` });
  });

  it.each(inherited)('the dispatch refuses tasks of kind "%s" written by another node, dispatching nothing', async (kind) => {
    const coordinator = new Coordinator({ specialists: { rag: specialist() } });
    const graph = planDispatchGraph(coordinator, (ctx) => (ctx.put('tasks', [{ kind: 'rag', input: 'a' }, { kind, input: 'b' }]), null));
    const run = await graph.run('x');
    expect(run.status).toBe('failed');
    expect(run.error?.code).toBe('invalid_tasks');
    expect(run.error?.message).toContain(`unknown specialist kind "${kind}" (known: rag)`);
    expect(run.state.get('specialistResults') as TaskResult[]).toEqual([]);
  });
});
