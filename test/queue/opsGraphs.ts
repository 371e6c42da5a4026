import { existsSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { AgentContext, HumanGate, StateGraph, Workflow, step } from 'switchboard';

/**
 * A graphs module for the queue's worker processes: `timed-review` waits at a HumanGate whose
 * deadline is `SWITCHBOARD_TEST_GATE_MS` (default 4000) ms after the wait begins, and takes
 * `expire` on timeout; `slow` runs three nodes of `SWITCHBOARD_TEST_SLOW_MS` (default 1500) ms each,
 * and, when `SWITCHBOARD_TEST_SLOW_HOLD` names a file, its nodes after the first end only once that
 * file exists (a test holds a run in the middle until it has done what it needs there). With
 * `SWITCHBOARD_TEST_DIE_AFTER_WAITING=1` the process SIGKILLs itself as soon as it has printed that a
 * run waits (a worker that dies right after a leg, however slow the test that watches it).
 */
const timeoutMs = Number(process.env.SWITCHBOARD_TEST_GATE_MS || 4000);
const slowMs = Number(process.env.SWITCHBOARD_TEST_SLOW_MS || 1500);
const hold = process.env.SWITCHBOARD_TEST_SLOW_HOLD || '';

if (process.env.SWITCHBOARD_TEST_DIE_AFTER_WAITING === '1') {
  const write = process.stdout.write.bind(process.stdout) as (chunk: string | Uint8Array, ...rest: unknown[]) => boolean;
  process.stdout.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    // A pipe's writes are synchronous on Linux: the line is out before the process dies.
    const written = write(chunk, ...rest);
    if (/^run \S+: waiting/m.test(String(chunk))) process.kill(process.pid, 'SIGKILL');
    return written;
  }) as typeof process.stdout.write;
}

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
