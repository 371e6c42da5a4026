import { existsSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { AgentContext, HumanGate, StateGraph, Workflow, step } from '../../src/index.js';

/**
 * A graphs module for the queue's worker processes: `timed-review` waits at a HumanGate whose
 * deadline is `SWITCHBOARD_TEST_GATE_MS` (default 4000) ms after the wait begins, and takes
 * `expire` on timeout; `slow` runs three nodes of `SWITCHBOARD_TEST_SLOW_MS` (default 1500) ms each,
 * and, when `SWITCHBOARD_TEST_SLOW_HOLD` names a file, its nodes after the first end only once that
 * file exists (a test holds a run in the middle until it has done what it needs there).
 */
const timeoutMs = Number(process.env.SWITCHBOARD_TEST_GATE_MS || 4000);
const slowMs = Number(process.env.SWITCHBOARD_TEST_SLOW_MS || 1500);
const hold = process.env.SWITCHBOARD_TEST_SLOW_HOLD || '';

const slowNode = (name: string) => async (_ctx: unknown, request: { input: unknown }) => {
  await sleep(slowMs);
  if (hold !== '' && name !== 'one') while (!existsSync(hold)) await sleep(20);
  return `${name}(${String(request.input)})`;
};

export const graphs = [
  Workflow.define<string>('timed-review')
    .step(step('draft', (_c, s: string) => `draft of ${s}`))
    .gate(new HumanGate({ timeoutMs }))
    .onPass(step('publish', (_c, s: string) => `published ${s}`))
    .onTimeout(step('expire', (ctx, s: string) => `expired ${s}: ${String(ctx.get(AgentContext.JUDGE_VERDICT)?.reasons[0] ?? '')}`))
    .end(),
  new StateGraph({ name: 'slow' })
    .addNode('one', slowNode('one'))
    .addNode('two', slowNode('two'))
    .addNode('three', slowNode('three'))
    .addEdge('one', 'two')
    .addEdge('two', 'three')
    .start('one'),
];
