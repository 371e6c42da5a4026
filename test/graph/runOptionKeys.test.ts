import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { GraphDefinitionError, RunManager, SqliteRunStore, StateGraph, Workflow, humanNode, resumeRun, step } from '../../src/index.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function counted() {
  const ran = { n: 0 };
  const graph = new StateGraph({ name: 'keys' })
    .addNode('a', () => {
      ran.n += 1;
      return 'done';
    })
    .start('a');
  return { ran, graph };
}

describe('a run refuses options it does not have, before anything runs or is stored', () => {
  it.each([
    [{ budgett: { maxTokens: 10 } }, 'RunOptions.budgett', 'did you mean "budget"?'],
    [{ Budget: { maxCost: 1 } }, 'RunOptions.Budget', 'did you mean "budget"?'],
    [{ singal: AbortSignal.timeout(1_000) }, 'RunOptions.singal', 'did you mean "signal"?'],
    [{ maxstep: 3 }, 'RunOptions.maxstep', 'did you mean "maxSteps"?'],
    [{ recorder: [] }, 'RunOptions.recorder', 'did you mean "recorders"?'],
    [{ timeoutMs: 5 }, 'RunOptions.timeoutMs', 'the options are runId, signal'],
  ])('%j', async (options, field, hint) => {
    const { ran, graph } = counted();
    for (const start of [() => graph.run('go', options as never), async () => {
      for await (const _event of graph.stream('go', options as never)) void _event;
    }]) {
      const error = await start().then(() => null, (e: unknown) => e);
      expect(error).toBeInstanceOf(GraphDefinitionError);
      expect((error as GraphDefinitionError).message).toContain(`${field} is not an option of a run`);
      expect((error as GraphDefinitionError).message).toContain(hint);
    }
    expect(ran.n).toBe(0);
  });

  it('a stored run, a RunManager and a typed workflow refuse them too, and store no run', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sb-option-keys-'));
    dirs.push(dir);
    const store = new SqliteRunStore({ file: join(dir, 'runs.db') });
    try {
      const { ran, graph } = counted();
      await expect(graph.run('go', { store, budgett: { maxCost: 1 } } as never)).rejects.toThrow(/RunOptions\.budgett is not an option of a run: did you mean "budget"\?/);
      await expect(new RunManager({ store, graphs: [graph] }).start('keys', 'go', { bugdet: { maxCost: 1 } } as never)).rejects.toThrow(/did you mean "budget"\?/);
      const flow = Workflow.define<string>('flow').step(step('one', (_c, s: string) => s));
      await expect(flow.run('go', { store, contxt: {} } as never)).rejects.toThrow(/RunOptions\.contxt is not an option of a run: did you mean "context"\?/);
      expect(ran.n).toBe(0);
      expect(await store.listRuns()).toEqual([]);
      // The options it has are taken as before.
      expect((await graph.run('go', { store, budget: { maxTokens: 10 }, maxSteps: 5, runId: 'fine' })).status).toBe('completed');
    } finally {
      await store.close();
    }
  });
});

describe('a resume refuses options it does not have, and the run options only a start takes', () => {
  it('names the slip or says the option is the run\'s own, and leaves the run waiting', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sb-option-keys-'));
    dirs.push(dir);
    const store = new SqliteRunStore({ file: join(dir, 'runs.db') });
    try {
      const graph = new StateGraph({ name: 'ask' }).addNode('ask', humanNode({ reason: 'ok?' })).addNode('done', () => 'done').start('ask').addEdge('ask', 'done');
      const runs = new RunManager({ store, graphs: [graph] });
      const waiting = await runs.start('ask', 'go', { budget: { maxTokens: 10 } });
      expect(waiting.status).toBe('waiting');
      const refused = async (resume: () => Promise<unknown>, ...parts: string[]) => {
        const error = await resume().then(() => null, (e: unknown) => e);
        expect(error).toBeInstanceOf(GraphDefinitionError);
        for (const part of parts) expect((error as Error).message).toContain(part);
      };
      await refused(() => runs.resume(waiting.runId, { reply: 'yes' }, { singal: AbortSignal.timeout(1_000) } as never), 'ResumeOptions.singal is not an option of a resume: did you mean "signal"?');
      await refused(() => resumeRun(graph, waiting.runId, { reply: 'yes' }, { store, budget: { maxTokens: 1_000 } } as never), 'ResumeOptions.budget is not an option of a resume', 'keeps its own budget');
      await refused(() => resumeRun(graph, waiting.runId, { reply: 'yes' }, { store, runId: 'other' } as never), 'ResumeOptions.runId');
      expect((await store.getRun(waiting.runId))?.status).toBe('waiting');
      const done = await runs.resume(waiting.runId, { reply: 'yes' }, { signal: AbortSignal.timeout(10_000) });
      expect(done.status).toBe('completed');
    } finally {
      await store.close();
    }
  });
});
