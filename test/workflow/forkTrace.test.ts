import { describe, expect, it } from 'vitest';
import { MemoryRecorder, SqliteRunStore, Workflow, WorkflowAbort, step, type WorkflowEvent } from 'switchboard';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runBoth } from './support.js';

class Flaky extends Error {
  readonly code = 'flaky';
}

async function collect(stream: AsyncIterable<WorkflowEvent>): Promise<WorkflowEvent[]> {
  const events: WorkflowEvent[] = [];
  for await (const e of stream) events.push(e);
  return events;
}

/** `type path nodeId` of each node event, in order. */
const nodeEvents = (events: readonly WorkflowEvent[]) => events.filter((e) => e.type.startsWith('node.')).map((e) => `${e.type} ${e.path} ${e.nodeId}`);

describe('fork branches in the trace', () => {
  const checks = () =>
    Workflow.define<string>('checks')
      .step(step('draft', (_c, s: string) => `draft ${s}`))
      .parallel(
        step('spell', (_c, s: string) => s, { updateContext: (ctx) => ctx.mutate().with('spelled', true).build() }),
        step('facts', (_c, s: string) => s, { updateContext: (ctx) => ctx.mutate().with('checked', 2).build() }),
      )
      .then(step('send', (_c, s: string) => `sent ${s}`));

  it('reports each branch step in its own lane, under the fork span, with its output and context writes', async () => {
    const events = await collect(checks().stream('x'));
    const nodes = nodeEvents(events);
    for (const [lane, id] of [['root/spell[1]', 'spell'], ['root/facts[2]', 'facts']]) {
      expect(nodes).toContain(`node.started ${lane} ${id}`);
      expect(nodes).toContain(`node.completed ${lane} ${id}`);
      // Both inside the fork: after it starts, before it completes.
      expect(nodes.indexOf(`node.started ${lane} ${id}`)).toBeGreaterThan(nodes.indexOf('node.started root fork'));
      expect(nodes.indexOf(`node.completed ${lane} ${id}`)).toBeLessThan(nodes.indexOf('node.completed root fork'));
    }
    const fork = events.find((e) => e.type === 'node.started' && e.nodeId === 'fork')!;
    const spell = events.filter((e) => e.nodeId === 'spell');
    expect(spell.every((e) => e.parentSpanId === fork.spanId && e.traceId === fork.traceId)).toBe(true);
    expect(new Set(spell.map((e) => e.spanId)).size).toBe(1);
    const facts = events.find((e) => e.type === 'node.completed' && e.nodeId === 'facts') as Extract<WorkflowEvent, { type: 'node.completed' }>;
    expect(facts.result?.handoff).toBe('draft x');
    expect(facts.delta).toEqual({ set: expect.objectContaining({ checked: 2 }), deleted: [] });
    expect(facts.step).toBe((fork as { step: number }).step);
    // Sequence numbers stay one run's: 1, 2, 3… with no gap or repeat.
    expect(events.map((e) => e.seq)).toEqual(events.map((_e, i) => i + 1));
  });

  it('stores the branch events of a durable run and gives recorders the same events as a stream', async () => {
    const store = new SqliteRunStore({ file: join(mkdtempSync(join(tmpdir(), 'sb-wf-trace-')), 'runs.db') });
    const recorder = new MemoryRecorder();
    const run = await checks().run('y', { store, recorders: [recorder] });
    expect(run.status).toBe('completed');
    const stored = await store.listEvents(run.runId);
    expect(stored.filter((e) => e.type === 'node.completed').map((e) => `${(e.data as WorkflowEvent).path} ${(e.data as WorkflowEvent).nodeId}`)).toEqual(
      expect.arrayContaining(['root/spell[1] spell', 'root/facts[2] facts']),
    );
    expect(recorder.events.filter((e) => e.path !== 'root').map((e) => e.nodeId).sort()).toEqual(['facts', 'facts', 'spell', 'spell']);
    await store.close();
  });
});

describe('onError inside forks', () => {
  it('recovers a failing gather branch with the handler by code; the others are untouched; the lane shows the failure and the recovery', async () => {
    const wf = Workflow.define<string>('gather-recover')
      .gather(step('ok', (_c, s: string) => `${s}!`), step('bad', (): string => { throw new Flaky('boom'); }))
      .onError('flaky', step('fallback', (_c, s: string, ) => `fallback for ${s}`, { updateContext: (ctx) => ctx.mutate().with('recovered', true).build() }));
    const run = await runBoth(wf, 'q');
    expect(run.status).toBe('completed');
    expect(run.output).toEqual(['q!', 'fallback for q']);
    expect(run.path).toEqual(['ok', 'bad', 'fallback']);
    expect(run.context.get('recovered')).toBe(true);
    expect(run.context.get('workflow.error')).toMatchObject({ step: 'bad', code: 'flaky', message: expect.stringContaining('boom') });
    const nodes = nodeEvents(await collect(wf.stream('q')));
    const lane = nodes.filter((n) => n.includes(' root/bad[2] '));
    expect(lane).toEqual(['node.started root/bad[2] bad', 'node.failed root/bad[2] bad', expect.stringMatching(/^node\.started root\/bad\[2\] fallback/), expect.stringMatching(/^node\.completed root\/bad\[2\] fallback/)]);
  });

  it('recovers by error class in a parallel block and in a dynamic fan-out; an unmatched error still fails the run', async () => {
    const parallel = Workflow.define<number>('parallel-recover')
      .parallel(step('fine', (_c, n: number) => n), step('breaks', (): number => { throw new RangeError('too big'); }))
      .then(step('after', (ctx, n: number) => `${n} ${String(ctx.get('workflow.error') !== undefined)}`))
      .onError(RangeError, step('clamp', () => 0));
    const p = await runBoth(parallel, 7);
    expect(p.status).toBe('completed');
    expect(p.output).toBe('7 true');
    expect(p.path).toEqual(['fine', 'breaks', 'clamp', 'after']);

    const fanOut = Workflow.define<number[]>('fan-out-recover')
      .parallel((_c, items: number[]) => items, (item) => step(`item-${item}`, (_c, n: number) => {
        if (n < 0) throw new RangeError('negative');
        return n * 10;
      }))
      .onError(RangeError, step('zero', () => 0));
    const f = await runBoth(fanOut, [1, -2, 3]);
    expect(f.output).toEqual([10, 0, 30]);
    const lanes = nodeEvents(await collect(fanOut.stream([1, -2, 3])));
    expect(lanes).toContain('node.failed root/for-each[2] item--2');
    expect(lanes.some((l) => /^node\.completed root\/for-each\[2\] zero/.test(l))).toBe(true);
    expect(lanes).toContain('node.completed root/for-each[3] item-3');

    const unmatched = await Workflow.define<number>('unmatched')
      .parallel(step('breaks', (): number => { throw new TypeError('not handled'); }))
      .onError(RangeError, step('clamp', () => 0))
      .run(1);
    expect(unmatched.status).toBe('failed');
    expect(unmatched.error?.message).toContain('not handled');
  });

  it('a branch that aborts ends the run aborted with its answer after the other branches finish', async () => {
    const wf = Workflow.define<string>('branch-abort')
      .gather(step('slow', async (_c, s: string) => (await new Promise((r) => setTimeout(r, 20)), s)), step('gives-up', (): string => { throw new WorkflowAbort('partial'); }))
      .then(step('never', () => 'not reached'));
    const run = await runBoth(wf, 'x');
    expect(run.status).toBe('aborted');
    expect(run.output).toBe('partial');
    expect(run.path).not.toContain('never');
  });
});

describe('sub-workflow trace paths', () => {
  it('nests a sub-workflow’s steps under the step’s path, three deep, in the parent’s trace and sequence', async () => {
    const leaf = Workflow.define<string>('leaf').step(step('lint', (_c, s: string) => `${s}+lint`)).build();
    const middle = Workflow.define<string>('middle').step(step('prep', (_c, s: string) => s)).then(leaf).build();
    const top = Workflow.define<string>('top').step(middle).then(step('ship', (_c, s: string) => `shipped ${s}`));
    const events = await collect(top.stream('v'));
    const nodes = nodeEvents(events);
    expect(nodes).toContain('node.completed root middle');
    expect(nodes).toContain('node.completed root/middle prep');
    expect(nodes).toContain('node.completed root/middle leaf');
    expect(nodes).toContain('node.completed root/middle/leaf lint');
    // Inner steps run while their sub-workflow step is in flight.
    expect(nodes.indexOf('node.completed root/middle/leaf lint')).toBeLessThan(nodes.indexOf('node.completed root/middle leaf'));
    expect(nodes.indexOf('node.completed root/middle leaf')).toBeLessThan(nodes.indexOf('node.completed root middle'));
    const middleStep = events.find((e) => e.type === 'node.started' && e.path === 'root' && e.nodeId === 'middle')!;
    const innerRun = events.find((e) => e.type === 'run.started' && e.path === 'root/middle')!;
    expect(innerRun.parentSpanId).toBe(middleStep.spanId);
    expect(new Set(events.map((e) => e.traceId)).size).toBe(1);
    expect(events.map((e) => e.seq)).toEqual(events.map((_e, i) => i + 1));
    const last = events.at(-1) as Extract<WorkflowEvent, { type: 'run.completed' }>;
    expect(last.run.outputText).toBe('shipped v+lint');
  });
});
