import { afterAll, describe, expect, it } from 'vitest';
import { Gates, gatedGraph } from '../fixtures/workbenchGraphs.js';
import { testWorkbench } from './workbenchTarget.js';
import { DrainTimeoutError } from '../../src/index.js';

const gates = new Gates();
const wb = testWorkbench({ graphs: [gatedGraph(gates)] });
afterAll(() => wb.shutdown());

describe('WorkbenchRuns.drain', () => {
  it('rejects with a DrainTimeoutError naming the runs still running when they do not end in time, and resolves once they have', async () => {
    const { body } = await wb.json('/api/runs', { method: 'POST', json: { graph: 'gated', message: 'go' } });
    const runId = body.runId as string;
    // The run waits at gate 'a' until the test opens it: it cannot end within the drain's 50 ms.
    const error = await wb.runs.drain(50).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(DrainTimeoutError);
    expect(error).toMatchObject({ code: 'drain_timeout', runIds: [runId], timeoutMs: 50 });
    expect((error as Error).message).toContain(runId);
    // Nothing was stopped: the run goes on once its gates open, and a later drain sees it end.
    expect((await wb.store.getRun(runId))?.status).toBe('running');
    for (const gate of ['a', 'b', 'c', 'd']) gates.open(gate);
    await wb.runs.drain(60_000);
    expect(wb.runs.activeLegs).toBe(0);
    expect((await wb.store.getRun(runId))?.status).toBe('completed');
  });

  it('resolves at once when no leg is running', async () => {
    await wb.runs.drain(1);
    expect(wb.runs.activeLegs).toBe(0);
  });
});
