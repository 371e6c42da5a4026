import { describe, expect, it } from 'vitest';
import { Coordinator, StateGraph, type WorkflowEvent } from '../../src/index.js';
import { TracePrinter } from '../../src/cli/TracePrinter.js';
import { dispatchGraph } from '../fixtures/durableGraphs.js';

describe('the CLI trace of a dispatch', () => {
  it('shows specialists waiting, retrying and failing with their reasons', async () => {
    const lines: string[] = [];
    const printer = new TracePrinter((line) => lines.push(line));
    await dispatchGraph().run('SO1, SO2', { onEvent: (e: WorkflowEvent) => printer.print(e) });
    expect(lines).toContain('    ⏸ refund[2] waits at approve');
    expect(lines.some((l) => l.includes('⏸ waiting at dispatch: refund[2] (root/refund[2]) waits at approve'))).toBe(true);

    let calls = 0;
    const flaky = new StateGraph({ name: 'flaky' })
      .addNode('work', () => {
        calls += 1;
        throw new Error(`outage ${calls}`);
      })
      .start('work');
    const coordinator = new Coordinator({ specialists: { flaky }, retries: 1 });
    const graph = new StateGraph({ name: 'p' }).addNode('plan', coordinator.planNode(() => [{ kind: 'flaky', input: 'x' }])).addNode('dispatch', coordinator.dispatchNode()).start('plan').addEdge('plan', 'dispatch');
    lines.length = 0;
    await graph.run('x', { onEvent: (e) => printer.print(e) });
    expect(lines).toContain('    ↻ flaky[1] attempt 2: node "work" failed: outage 1');
    expect(lines).toContain('    ⇲ flaky[1] failed: node "work" failed: outage 2');
  });
});
