import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Coordinator, END, SqliteRunStore, StateGraph, type RunStore, type TaskResult } from '../../src/index.js';

/**
 * Tasks: `hang` waits until its signal aborts; anything else answers at once. The coordinator's
 * needsHuman throws on the answer to `check me`, as a check with a bug does.
 */
function setup() {
  const aborted: string[] = [];
  const specialist = new StateGraph({ name: 'desk' })
    .addNode('work', (ctx, request) => {
      if (request.input === 'hang') return new Promise((resolve) => ctx.signal.addEventListener('abort', () => (aborted.push(ctx.runId), resolve(null))));
      return `answered ${String(request.input)}`;
    })
    .start('work');
  const coordinator = new Coordinator({
    specialists: { desk: specialist },
    retries: 2,
    needsHuman: (state) => {
      const answer = (state.lastResult as { outputText?: string } | undefined)?.outputText;
      if (answer === 'answered check me') throw new Error('the escalation table has no row for "check me"');
      return null;
    },
  });
  const graph = new StateGraph({ name: 'composite' })
    .addNode('plan', coordinator.planNode(() => [{ kind: 'desk', input: 'hang' }, { kind: 'desk', input: 'check me' }]))
    .addNode('dispatch', coordinator.dispatchNode())
    .addNode('after', () => 'went on')
    .start('plan')
    .addEdge('plan', 'dispatch')
    .addEdge('dispatch', 'after')
    .addEdge('after', END);
  return { graph, aborted };
}

describe('a coordinator whose needsHuman throws', () => {
  for (const where of ['memory', 'SQLite file'] as const) {
    it(`fails the run with a node_failed error naming the coordinator, the task and the thrown message, whatever onFailure says (${where})`, async () => {
      const { graph, aborted } = setup();
      const store: RunStore | undefined = where === 'memory' ? undefined : new SqliteRunStore({ file: join(mkdtempSync(join(tmpdir(), 'needs-human-')), 'runs.db') });
      const run = await graph.run('x', store === undefined ? {} : { store });
      expect(run.status).toBe('failed');
      expect(run.path).toEqual(['plan', 'dispatch']);
      expect(run.error).toMatchObject({ name: 'WorkflowExecutionError', code: 'node_failed' });
      expect(run.error?.message).toBe(
        'coordinator "dispatch": needsHuman threw on desk[2]\'s final state: the escalation table has no row for "check me"; 1 other task cancelled; needsHuman must return a reason (a string) or null for any specialist state, without throwing',
      );
      // The task is recorded failed (no retry: the same state would throw again), the one still out cancelled.
      const results = run.state.get('specialistResults') as TaskResult[];
      expect(results.map((r) => [r.status, r.attempts])).toEqual([
        ['cancelled', 1],
        ['failed', 1],
      ]);
      expect(results[1]).toMatchObject({ reason: 'needsHuman threw on desk[2]\'s final state: the escalation table has no row for "check me"', outputText: 'answered check me', error: { code: 'node_failed' } });
      expect(aborted).toHaveLength(1);
      if (store !== undefined) {
        const stored = await store.getRun(run.runId);
        expect(stored?.status).toBe('failed');
        await store.close();
      }
    });
  }
});
