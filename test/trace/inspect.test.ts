import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { InspectionEvent } from 'xstate';
import { afterAll, describe, expect, it } from 'vitest';
import { SqliteRunStore, StateGraph, humanNode, resumeRun } from '../../src/index.js';

const dir = mkdtempSync(join(tmpdir(), 'sb-inspect-'));
const store = new SqliteRunStore({ file: join(dir, 'runs.db') });
afterAll(() => store.close());

function graph() {
  return new StateGraph({ name: 'inspected' })
    .addNode('draft', () => 'draft')
    .addNode('approve', humanNode({ reason: 'approve' }))
    .addNode('finish', () => 'done')
    .start('draft')
    .addEdge('draft', 'approve')
    .addEdge('approve', 'finish');
}

const actorIds = (events: InspectionEvent[]) => events.filter((e) => e.type === '@xstate.actor').map((e) => (e.actorRef as { id?: string }).id);
const eventTypes = (events: InspectionEvent[]) => events.filter((e) => e.type === '@xstate.event').map((e) => e.event.type);

describe('run(..., { inspect })', () => {
  it('passes XState inspection through for an in-memory run', async () => {
    const seen: InspectionEvent[] = [];
    const simple = new StateGraph({ name: 'plain' }).addNode('a', () => 'A').addNode('b', () => 'B').start('a').addEdge('a', 'b');
    const run = await simple.run('x', { inspect: (e) => seen.push(e) });
    expect(run.status).toBe('completed');
    expect(actorIds(seen)).toEqual(expect.arrayContaining(['a', 'b']));
    expect(eventTypes(seen)).toEqual(expect.arrayContaining(['xstate.init', 'xstate.done.actor.a', 'xstate.done.actor.b']));
    const snapshots = seen.filter((e) => e.type === '@xstate.snapshot');
    expect(snapshots.some((e) => (e.snapshot as { status: string }).status === 'done')).toBe(true);
  });

  it('accepts an observer and inspects both legs of a stored run', async () => {
    const first: InspectionEvent[] = [];
    const waiting = await graph().run('x', { store, inspect: { next: (e) => first.push(e) } });
    expect(waiting.status).toBe('waiting');
    expect(actorIds(first)).toContain('draft');
    const second: InspectionEvent[] = [];
    const done = await resumeRun(graph(), waiting.runId, { reply: 'yes' }, { store, inspect: (e) => second.push(e) });
    expect(done.status).toBe('completed');
    expect(eventTypes(second)).toContain('human.reply');
    expect(actorIds(second)).toContain('finish');
  });
});
