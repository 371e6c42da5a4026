import { describe, expect, it } from 'vitest';
import { createActor, toPromise, waitFor } from 'xstate';
import { AgentContext, JudgeGate, OfflineModel, TieredGate, Workflow, llmJudge, step, type Gate, type GateDecision, type Judge, type WorkflowMachineOutput } from 'switchboard';
import { runBoth } from './support.js';

const lengthJudge: Judge = (_ctx, output) => ({ score: Math.min(1, String(output).length / 10), reasons: [`${String(output).length} characters`] });
const draft = step('draft', (_c, topic: string) => topic);
const revise = step('revise', (c, text: string) => `${text} (${String(c.get(AgentContext.JUDGE_REFLECTION) ?? 'more')})`);
const reflector = step('reflect', (_c, verdict: unknown) => `score was ${String((verdict as { score: number }).score)}`);
const publish = step('publish', (_c, text: string) => `published: ${text}`);
const escalate = step('escalate', (_c, text: string) => `escalated: ${text}`);

describe('gates', () => {
  it('passes at once when the jury score reaches the threshold, writing the verdict', async () => {
    const wf = Workflow.define<string>('pass').step(draft).gate(new JudgeGate(lengthJudge, 0.5)).onPass(publish).onFail(revise).end();
    const run = await runBoth(wf, 'a long enough text');
    expect(run.output).toBe('published: a long enough text');
    expect(run.path).toEqual(['draft', 'publish']);
    expect(run.context.get(AgentContext.JUDGE_VERDICT)).toEqual({ decision: 'PASS', score: 1, reasons: ['18 characters'] });
  });

  it('on FAIL reflects, runs onFail and judges again until it passes', async () => {
    const wf = Workflow.define<string>('revise').step(draft).gate(new JudgeGate(lengthJudge, 0.9)).onPass(publish).onFail(revise).withReflector(reflector).maxRetries(5).end();
    const run = await runBoth(wf, 'hi');
    // The reflector runs inside the gate (it is part of judging), so the path shows the revision only.
    expect(run.path).toEqual(['draft', 'revise', 'publish']);
    expect(run.output).toBe('published: hi (score was 0.2)');
    expect(run.context.get(AgentContext.JUDGE_REFLECTION)).toBe('score was 0.2');
    expect(run.context.get(AgentContext.JUDGE_VERDICT)?.decision).toBe('PASS');
  });

  it('treats a fail as ESCALATE when the retries run out', async () => {
    const never: Judge = () => ({ score: 0.1, reasons: ['bad'] });
    const wf = Workflow.define<string>('exhaust').step(draft).gate(new JudgeGate(never, 0.5)).onPass(publish).onFail(revise).onEscalate(escalate).maxRetries(2).end();
    const run = await runBoth(wf, 'x');
    expect(run.path).toEqual(['draft', 'revise', 'revise', 'escalate']);
    const verdict = run.context.get(AgentContext.JUDGE_VERDICT);
    expect(verdict?.decision).toBe('ESCALATE');
    expect(verdict?.reasons.join(' ')).toContain('after 2 retries');
  });

  it('takes each tier of a TieredGate', async () => {
    const fixed = (score: number): Judge => () => ({ score });
    const make = (score: number) =>
      Workflow.define<string>(`tier-${score}`).step(draft).gate(new TieredGate(fixed(score), 0.8, 0.5)).onPass(publish).onFail(step('fix', (_c, s: string) => s)).onEscalate(escalate).maxRetries(0).end();
    expect((await runBoth(make(0.9), 't')).path).toEqual(['draft', 'publish']);
    expect((await runBoth(make(0.6), 't')).path).toEqual(['draft', 'escalate']);
    const low = await runBoth(make(0.1), 't');
    expect(low.path).toEqual(['draft', 'escalate']);
    expect(low.context.get(AgentContext.JUDGE_VERDICT)?.reasons.join(' ')).toContain('after 0 retries');
  });

  it('leaves inconclusive judges out of the mean and escalates with the reasons when all are inconclusive', async () => {
    const throws: Judge = () => {
      throw new Error('judge offline');
    };
    const noNumber: Judge = () => ({ score: Number.NaN });
    const mixed = Workflow.define<string>('mixed').step(draft).gate(new JudgeGate([throws, () => ({ score: 0.8 })], 0.5)).onPass(publish).end();
    const m = await runBoth(mixed, 'x');
    expect(m.context.get(AgentContext.JUDGE_VERDICT)?.score).toBe(0.8);
    expect(m.context.get(AgentContext.JUDGE_VERDICT)?.reasons.join(' ')).toContain('judge offline');
    const none = Workflow.define<string>('none').step(draft).gate(new JudgeGate([throws, noNumber], 0.5)).onPass(publish).onEscalate(escalate).end();
    const n = await runBoth(none, 'x');
    expect(n.path).toEqual(['draft', 'escalate']);
    const verdict = n.context.get(AgentContext.JUDGE_VERDICT);
    expect(verdict).toMatchObject({ decision: 'ESCALATE', score: null });
    expect(verdict?.reasons.join(' ')).toContain('gave no score');
  });

  it('routes each decision of a gate of its own, TIMEOUT included, and applies its updateContext', async () => {
    const answers = (decision: GateDecision): Gate<string> => ({
      name: 'own',
      evaluate: () => decision,
      updateContext: (ctx, d) => ctx.mutate().with('own-gate', d).build(),
    });
    const make = (decision: GateDecision) =>
      Workflow.define<string>(`own-${decision}`)
        .step(draft)
        .gate(answers(decision))
        .onPass(publish)
        .onFail(revise)
        .onEscalate(escalate)
        .onTimeout(step('timed-out', (_c, s: string) => `timed out: ${s}`))
        .maxRetries(0)
        .end();
    const timeout = await runBoth(make('TIMEOUT'), 'x');
    expect(timeout.path).toEqual(['draft', 'timed-out']);
    expect(timeout.output).toBe('timed out: x');
    expect(timeout.context.get('own-gate')).toBe('TIMEOUT');
    expect((await runBoth(make('PASS'), 'x')).path).toEqual(['draft', 'publish']);
    expect((await runBoth(make('ESCALATE'), 'x')).path).toEqual(['draft', 'escalate']);
    // FAIL with no retries left is treated as ESCALATE.
    const fail = await runBoth(make('FAIL'), 'x');
    expect(fail.path).toEqual(['draft', 'escalate']);
    expect(fail.context.get('own-gate')).toBe('ESCALATE');
  });

  it('waits for a person when ESCALATE has no onEscalate', async () => {
    const wf = Workflow.define<string>('wait').step(draft).gate(new JudgeGate(() => ({ score: 0.6 }), 0.9)).onPass(publish).maxRetries(0).end();
    const run = await wf.run('x');
    expect(run.status).toBe('waiting');
    expect(run.waiting?.nodeId).toBe('judge-gate:person');
    // Under plain XState: the machine waits at the same node, and a person's PASS publishes.
    const actor = createActor(wf.toMachine(), { input: { input: 'x' } as never });
    actor.start();
    await waitFor(actor, (s) => (s.context as { status: string }).status === 'waiting');
    expect((actor.getSnapshot().context as { waiting: { nodeId: string } }).waiting.nodeId).toBe('judge-gate:person');
    actor.send({ type: 'human.reply', reply: { decision: 'PASS' } } as never);
    const out = (await toPromise(actor)) as unknown as WorkflowMachineOutput;
    expect(out).toMatchObject({ status: 'completed', output: 'published: x', path: ['draft', 'publish'] });
  });

  it('scores with an llmJudge on an offline model', async () => {
    const model = new OfflineModel({ rules: { judge: ({ input }) => ({ json: { score: input.includes('please') ? 0.9 : 0.2, reasons: ['politeness'] } }) } });
    const wf = Workflow.define<string>('polite').step(draft).gate(new JudgeGate(llmJudge(model, 'Is it polite?'), 0.5)).onPass(publish).onEscalate(escalate).maxRetries(0).end();
    expect((await runBoth(wf, 'please help')).output).toBe('published: please help');
    expect((await runBoth(wf, 'help now')).output).toBe('escalated: help now');
  });
});
