import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent, AgentContext, DECISION_AGENT, OfflineModel, Workflow, agentStep, chatStep, contextKey, step } from 'switchboard';
import { ScriptedModel } from 'switchboard/testing';
import { runBoth } from './support.js';

const DEPTH = contextKey('depth', z.array(z.string()));
const mark = (name: string) =>
  step(name, (_c, s: string) => `${s}>${name}`, { updateContext: (ctx) => ctx.mutate().with(DEPTH, [...(ctx.get(DEPTH) ?? []), name]).build() });

describe('decisions, shortcuts and sub-workflows', () => {
  it('lets an offline model pick one option by name', async () => {
    const model = new OfflineModel({ rules: { [DECISION_AGENT]: ({ input }) => ({ json: { choice: input.includes('refund') ? 'billing' : 'support' } }) } });
    const wf = Workflow.define<string>('route')
      .decision(model)
      .option('billing', step('billing', (_c, s: string) => `billing: ${s}`))
      .option('support', step('support', (_c, s: string) => `support: ${s}`))
      .end();
    const a = await runBoth(wf, 'I want a refund');
    expect(a.output).toBe('billing: I want a refund');
    expect(a.path).toEqual(['billing']);
    expect((await runBoth(wf, 'it is broken')).path).toEqual(['support']);
  });

  it('fails the decision when the model names no option', async () => {
    const model = new OfflineModel({ rules: { [DECISION_AGENT]: () => 'neither' } });
    const wf = Workflow.define<string>('bad-choice').decision(model).option('a', step('a', (_c, s: string) => s)).option('b', step('b', (_c, s: string) => s)).end();
    const run = await runBoth(wf, 'x');
    expect(run.status).toBe('failed');
    expect(run.error?.message).toContain('names none of the options (a, b)');
  });

  it('runs the sequential, loop, parallel and supervisor shortcuts', async () => {
    const seq = Workflow.sequential<string>('seq').step(mark('a')).then(mark('b'));
    const sq = await runBoth(seq, 's');
    expect(sq.output).toBe('s>a>b');
    expect(sq.path).toEqual(['a', 'b']);
    expect(sq.context.get(DEPTH)).toEqual(['a', 'b']);

    const times = Workflow.loop<string>('thrice').step(mark('x')).times(3);
    const t = await runBoth(times, '');
    expect(t.output).toBe('>x>x>x');
    expect(t.path).toEqual(['x', 'x', 'x']);
    expect(t.context.get(AgentContext.ITERATION_COUNT)).toBe(3);

    const until = Workflow.loop<string>('grow').step(mark('y')).until((_c, s) => s.length > 5);
    const u = await runBoth(until, '');
    expect(u.output).toBe('>y>y>y');
    expect(u.path).toEqual(['y', 'y', 'y']);
    expect(u.context.get(DEPTH)).toEqual(['y', 'y', 'y']);

    const par = Workflow.parallel<string>('par').step(step('len', (_c, s: string) => s.length), step('up', (_c, s: string) => s.toUpperCase()));
    const p = await runBoth(par, 'ab');
    expect(p.output).toEqual([2, 'AB']);
    expect(p.path).toEqual(['len', 'up']);

    const model = new OfflineModel({ rules: { [DECISION_AGENT]: ({ input }) => ({ json: { choice: input.includes('drafted') ? 'editor' : 'writer' } }) } });
    const sup = Workflow.supervisor<string>('desk', model)
      .agents(step('writer', (_c, s: string) => `${s} drafted`), step('editor', (_c, s: string) => `${s} edited`))
      .until((_c, s) => s.endsWith('edited'));
    const s = await runBoth(sup, 'story');
    expect(s.output).toBe('story drafted edited');
    // Each round is one step of the supervisor's loop; the agent a round picks runs inside it.
    expect(s.path).toEqual(['desk-round', 'desk-round']);
    expect(s.context.get(AgentContext.ITERATION_COUNT)).toBe(2);
  });

  it('runs chatStep and agentStep on scripted and offline models, counting tokens', async () => {
    // Two turns: one for run(), one for the same workflow under plain XState.
    const scripted = new ScriptedModel([{ text: 'Bonjour', usage: { totalTokens: 7 } }, { text: 'Bonjour', usage: { totalTokens: 7 } }]);
    const chat = Workflow.define<string>('chat').step(chatStep(scripted, 'Translate: {input}'));
    const run = await runBoth(chat, 'Hello');
    expect(run.output).toBe('Bonjour');
    expect(run.context.get(AgentContext.ACCUMULATED_TOKENS)).toBe(7);
    const agent = new Agent({ name: 'echo', instructions: 'Repeat.', model: new OfflineModel({ rules: { echo: ({ input }) => `echo ${input}` } }) });
    const wf = Workflow.define<string>('agent').step(agentStep(agent));
    const out = await runBoth(wf, 'hi');
    expect(out.output).toBe('echo hi');
    expect(wf.compile().nodes[0]).toMatchObject({ type: 'step', kind: 'agent' });
  });

  it('nests sub-workflows three deep, each starting from the parent context and merging its own back', async () => {
    const inner = Workflow.define<string>('inner').step(mark('c')).build();
    const middle = Workflow.define<string>('middle').step(mark('b')).then(inner).build();
    const outer = Workflow.define<string>('outer').step(mark('a')).then(middle).then(step('read', (c, s: string) => `${s}|${(c.get(DEPTH) ?? []).join(',')}`));
    const run = await runBoth(outer, 's');
    expect(run.output).toBe('s>a>b>c|a,b,c');
    expect(run.path).toEqual(['a', 'middle', 'read']);
    expect(run.context.get(DEPTH)).toEqual(['a', 'b', 'c']);
    // The parent's identity stays its own after the merge.
    expect(run.context.get(AgentContext.WORKFLOW_NAME)).toBe('outer');
    expect(outer.compile().nodes.find((n) => n.id === 'middle')).toMatchObject({ subWorkflow: 'middle' });
  });

  it('merges a sub-workflow in a parallel branch at the join, the last branch to finish winning', async () => {
    const slowSub = Workflow.define<string>('slow-sub')
      .step(step('wait', async (_c, s: string) => {
        await new Promise((r) => setTimeout(r, 40));
        return s;
      }, { updateContext: (ctx) => ctx.mutate().with('winner', 'sub').with('fromSub', true).build() }))
      .build();
    const quick = step('quick', (_c, s: string) => s, { updateContext: (ctx) => ctx.mutate().with('winner', 'quick').build() });
    const wf = Workflow.define<string>('branches').parallel(slowSub, quick);
    const run = await runBoth(wf, 'v');
    expect(run.output).toBe('v');
    expect(run.context.get('fromSub')).toBe(true);
    expect(run.context.get('winner')).toBe('sub');
  });

  it('aborts the parent when a sub-workflow aborts, with the same output', async () => {
    const { WorkflowAbort } = await import('switchboard');
    const sub = Workflow.define<string>('sub').step(step('stop', (): string => {
      throw new WorkflowAbort('partial answer');
    })).build();
    const run = await runBoth(Workflow.define<string>('parent').step(sub).then(step('after', () => 'no')), 'x');
    expect(run.status).toBe('aborted');
    expect(run.output).toBe('partial answer');
  });
});
