import { describe, expect, it } from 'vitest';
import { Coordinator, GraphDefinitionError, StateGraph, type CoordinatorOptions, type TaskResult } from '../../src/index.js';
import { planDispatchGraph } from '../support/planDispatchGraph.js';

function build(options: Omit<CoordinatorOptions, 'specialists'>) {
  const ran: string[] = [];
  const specialist = new StateGraph({ name: 'a' }).addNode('work', (ctx, request) => (ran.push(ctx.runId), `answered ${String(request.input)}`)).start('work');
  const coordinator = new Coordinator({ specialists: { a: specialist }, ...options });
  const graph = planDispatchGraph(coordinator, coordinator.planNode(() => [{ kind: 'a', input: 'q' }, { kind: 'a', input: 'r' }]));
  return { graph, ran };
}

describe('coordinator tasksKey and resultsKey', () => {
  it('refuses the same key for the plan and the results (the dispatch would clear the plan and run nothing)', () => {
    expect(() => build({ tasksKey: 'work', resultsKey: 'work' })).toThrow(GraphDefinitionError);
    expect(() => build({ resultsKey: 'tasks' })).toThrow('Coordinator: tasksKey and resultsKey must be different state keys; both are "tasks"');
    expect(() => build({ tasksKey: 'specialistResults' })).toThrow('both are "specialistResults"');
  });

  it.each(['lastResult', 'lastNodeId', 'currentRequest', 'currentNodeId'])('refuses "%s", a key the engine writes after every node, for either', (key) => {
    expect(() => build({ resultsKey: key })).toThrow(`Coordinator: resultsKey "${key}" is a key the engine writes after every node; choose another state key`);
    expect(() => build({ tasksKey: key })).toThrow(`Coordinator: tasksKey "${key}" is a key the engine writes after every node`);
  });

  it('runs every task and keeps the results under keys of its own', async () => {
    const { graph, ran } = build({ tasksKey: 'plan', resultsKey: 'answers' });
    const run = await graph.run('x');
    expect(run.status).toBe('completed');
    expect(ran).toHaveLength(2);
    expect((run.state.get('answers') as TaskResult[]).map((r) => r.outputText)).toEqual(['answered q', 'answered r']);
  });
});
