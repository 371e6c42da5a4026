import { AgentContext, HumanGate, Workflow, step } from '../../src/index.js';

/**
 * A graphs module for worker processes: `timed-review` waits at a HumanGate whose deadline is
 * `SWITCHBOARD_TEST_GATE_MS` (default 4000) ms after the wait begins, and takes `expire` on timeout.
 */
const timeoutMs = Number(process.env.SWITCHBOARD_TEST_GATE_MS || 4000);

export const graphs = [
  Workflow.define<string>('timed-review')
    .step(step('draft', (_c, s: string) => `draft of ${s}`))
    .gate(new HumanGate({ timeoutMs }))
    .onPass(step('publish', (_c, s: string) => `published ${s}`))
    .onTimeout(step('expire', (ctx, s: string) => `expired ${s}: ${String(ctx.get(AgentContext.JUDGE_VERDICT)?.reasons[0] ?? '')}`))
    .end(),
];
