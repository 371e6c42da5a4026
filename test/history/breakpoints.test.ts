import { describe, expect, it } from 'vitest';
import { OfflineModel, RunManager, SqliteRunStore, stateAt } from '../../src/index.js';
import { customerService } from '../../machines/customerService.js';
import { memoryTarget, postgresTarget, sqliteTarget, useStoreTarget, type StoreTarget } from '../persistence/storeTargets.js';
import { graphs, tallyGraph } from '../fixtures/timeTravelGraphs.js';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const targets: [string, () => StoreTarget][] = [
  ['memory', memoryTarget],
  ['SQLite', sqliteTarget],
  ['PostgreSQL', postgresTarget],
];

describe.each(targets)('breakpoints on %s', (_name, makeTarget) => {
  const target = useStoreTarget(makeTarget);

  it('pauses before and after named nodes like a human wait, and goes on when resumed without a reply', async () => {
    const { store } = target();
    const runs = new RunManager({ store, graphs });
    const executed: string[] = [];
    const first = await runs.start('tally', 'x', { breakpoints: { before: ['double'], after: ['double'] }, onEvent: (e) => void (e.type === 'node.completed' && executed.push(e.nodeId!)) });
    expect(first).toMatchObject({ status: 'waiting', path: ['count', 'double'], waiting: { nodeId: 'double', reason: 'breakpoint before double', breakpoint: 'before' } });
    // double has not run: the state is the one after count.
    expect(Object.fromEntries(first.state)).toMatchObject({ n: 1 });
    expect(executed).toEqual(['count']);
    const row = (await store.getRun(first.runId))!;
    expect(row).toMatchObject({ status: 'waiting', waitReason: 'breakpoint before double', owner: null });
    expect((await stateAt(store, first.runId, 1)).lastStep).toBe(1);

    const second = await runs.resume(first.runId);
    expect(second).toMatchObject({ status: 'waiting', waiting: { nodeId: 'small', reason: 'breakpoint after double (next: small)', breakpoint: 'after' } });
    expect(Object.fromEntries(second.state)).toMatchObject({ n: 2 });
    // A reply to a breakpoint is not for anyone: the run just goes on.
    const done = await runs.resume(first.runId, { reply: 'ignored' });
    expect(done).toMatchObject({ status: 'completed', path: ['count', 'double', 'small'], outputText: 'small 2 after counted x' });
    // The same answer as a run without breakpoints.
    const plain = await runs.start('tally', 'x');
    expect(done.outputText).toBe(plain.outputText);
    expect(Object.fromEntries(done.state)).toEqual(Object.fromEntries(plain.state));
    const types = (await store.listEvents(first.runId)).map((e) => e.type);
    expect(types.filter((t) => t === 'run.waiting')).toHaveLength(2);
    expect(types.filter((t) => t === 'node.completed')).toHaveLength(3);
  });

  it('refuses a breakpoint naming no node, and breakpoints without a store, at the start, typed', async () => {
    const { store } = target();
    const runs = new RunManager({ store, graphs });
    const before = (await store.listRuns()).length;
    await expect(runs.start('tally', 'x', { breakpoints: { before: ['dubble'] } })).rejects.toMatchObject({ name: 'BreakpointError', code: 'invalid_breakpoint' });
    await expect(runs.start('tally', 'x', { breakpoints: { after: ['count', 7 as never] } })).rejects.toMatchObject({ code: 'invalid_breakpoint' });
    await expect(runs.start('tally', 'x', { breakpoints: { before: 'double' as never } })).rejects.toMatchObject({ code: 'invalid_breakpoint' });
    const message = await runs.start('tally', 'x', { breakpoints: { before: ['dubble'] } }).catch((e: Error) => e.message);
    expect(message).toContain('count, double, big, small');
    expect((await store.listRuns()).length).toBe(before);
    await expect(tallyGraph().run('x', { breakpoints: { before: ['double'] } })).rejects.toMatchObject({ code: 'invalid_breakpoint' });
  });

  it('pauses the customer-service graph before its draft and ends with the same answer', async () => {
    const { store } = target();
    const runs = new RunManager({ store, graphs: [customerService({ model: new OfflineModel() })] });
    const message = 'What is the return policy for Aero headphones? Can I return them unused three days after delivery?';
    const paused = await runs.start('customer-service', message, { breakpoints: { before: ['draft'] } });
    expect(paused.waiting).toMatchObject({ nodeId: 'draft', breakpoint: 'before' });
    const done = await runs.resume(paused.runId);
    const plain = await runs.start('customer-service', message);
    expect(done).toMatchObject({ status: 'completed', path: plain.path, outputText: plain.outputText });
  });
});

describe('breakpoints across a restart', () => {
  it('keeps a paused run and its breakpoints in SQLite; another store connection resumes it and it pauses again', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'sb-break-')), 'runs.db');
    const first = new SqliteRunStore({ file });
    const paused = await new RunManager({ store: first, graphs }).start('tally', 'x', { breakpoints: { before: ['double', 'small'] } });
    expect(paused.waiting?.nodeId).toBe('double');
    await first.close();
    const second = new SqliteRunStore({ file });
    const runs = new RunManager({ store: second, graphs: [tallyGraph()] });
    const again = await runs.resume(paused.runId);
    expect(again.waiting).toMatchObject({ nodeId: 'small', reason: 'breakpoint before small' });
    const done = await runs.resume(paused.runId);
    expect(done).toMatchObject({ status: 'completed', outputText: 'small 2 after counted x' });
    await second.close();
  });
});
