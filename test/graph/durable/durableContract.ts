import { beforeEach, describe, expect, it } from 'vitest';
import { StateGraph, cancelRun, resumeRun, RunStateError, type RunStore, type WorkflowEvent } from '../../../src/index.js';
import { approvalGraph } from '../../fixtures/durableGraphs.js';
import { useStoreTarget, type StoreTarget } from '../../persistence/storeTargets.js';
import { runChild } from './childProcess.js';

/**
 * Durable-run behaviour every store must support: checkpoints, waiting, resume, cancel, recovery
 * rules. `crossProcess: false` leaves out the case that reopens the store in other processes (a
 * store in memory lives in one process).
 */
export function durableContract(label: string, makeTarget: () => StoreTarget, options: { crossProcess?: boolean } = {}): void {
  describe(`${label}: durable runs`, () => {
    const current = useStoreTarget(makeTarget);
    let target: StoreTarget;
    let store: RunStore;
    beforeEach(() => {
      target = current();
      store = target.store;
    });

    it('commits steps in groups without holding nodes back, and stores every event by the end', async () => {
      const seenSteps: Array<[number, number]> = [];
      const graph = new StateGraph({ name: 'steps' })
        .addNode('a', async (ctx) => {
          const stored = await store.getRun(ctx.runId);
          seenSteps.push([ctx.step, (stored!.snapshot as { context: { steps: number } }).context.steps]);
          ctx.put('n', (ctx.get<number>('n') ?? 0) + 1);
          return null;
        })
        .start('a')
        .addTransition('a', 'a', (ctx) => (ctx.get<number>('n') ?? 0) < 4);
      const emitted: WorkflowEvent[] = [];
      const run = await graph.run('x', { store, onEvent: (e) => emitted.push(e) });
      expect(run.status).toBe('completed');
      // A node sees a committed prefix of the run: never a step that has not happened yet.
      expect(seenSteps.map(([step]) => step)).toEqual([1, 2, 3, 4]);
      for (const [step, stored] of seenSteps) expect(stored).toBeLessThanOrEqual(step);
      const stored = await store.listEvents(run.runId);
      expect(stored.map((e) => [e.seq, e.type])).toEqual(emitted.map((e) => [e.seq, e.type]));
      const record = await store.getRun(run.runId);
      expect(record).toMatchObject({ status: 'completed', owner: null, lastSeq: emitted.length });
      expect((record!.snapshot as { context: { state: { n: number } } }).context.state.n).toBe(4);
    });

    it('waits at a human node, resumes with the reply, and refuses a second resume', async () => {
      const graph = approvalGraph();
      const run = await graph.run('SO20261001', { store });
      expect(run.status).toBe('waiting');
      expect(run.waiting).toEqual({ nodeId: 'approve', reason: 'approve a refund of 599 CNY' });
      expect(await store.getRun(run.runId)).toMatchObject({ status: 'waiting', waitReason: 'approve a refund of 599 CNY', owner: null });

      const resumed = await resumeRun(graph, run.runId, { reply: 'approved by Ana' }, { store });
      expect(resumed.status).toBe('completed');
      expect(resumed.path).toEqual(['draft', 'approve', 'finish']);
      expect(resumed.outputText).toBe('finished: approved by Ana (reply=approved by Ana)');
      expect(resumed.state.get('humanReply')).toBe('approved by Ana');

      const before = await store.getRun(run.runId);
      const again = await resumeRun(graph, run.runId, { reply: 'twice' }, { store }).catch((e: unknown) => e);
      expect(again).toBeInstanceOf(RunStateError);
      expect(again).toMatchObject({ code: 'run_finished' });
      expect(await store.getRun(run.runId)).toEqual(before);
      const seqs = (await store.listEvents(run.runId)).map((e) => e.seq);
      expect(seqs).toEqual(seqs.map((_, i) => i + 1));
    });

    it('lets exactly one of two concurrent resumes win; the loser changes nothing', async () => {
      const graph = approvalGraph();
      const run = await graph.run('SO1', { store });
      const results = await Promise.allSettled([
        resumeRun(graph, run.runId, { reply: 'first' }, { store }),
        resumeRun(graph, run.runId, { reply: 'second' }, { store }),
      ]);
      const won = results.filter((r) => r.status === 'fulfilled');
      const lost = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
      expect(won).toHaveLength(1);
      expect(lost).toHaveLength(1);
      // Which refusal the loser gets depends on how far the winner got: the compare-and-set itself
      // (run_conflict), or a run already claimed or finished.
      expect(lost[0]!.reason).toBeInstanceOf(RunStateError);
      expect(['run_conflict', 'run_not_waiting', 'run_finished']).toContain((lost[0]!.reason as RunStateError).code);
      const events = await store.listEvents(run.runId);
      expect(events.filter((e) => e.type === 'run.resumed')).toHaveLength(1);
      const reply = (won[0] as PromiseFulfilledResult<{ state: Map<string, unknown> }>).value.state.get('humanReply');
      expect(['first', 'second']).toContain(reply);
    });

    it('refuses a reply that is not a string, and a resume by a graph whose shape changed', async () => {
      const run = await approvalGraph().run('SO1', { store });
      await expect(resumeRun(approvalGraph(), run.runId, { reply: 42 as never }, { store })).rejects.toMatchObject({ code: 'invalid_reply' });
      const changed = approvalGraph().addNode('extra', () => null);
      await expect(resumeRun(changed, run.runId, { reply: 'ok' }, { store })).rejects.toMatchObject({ code: 'graph_changed' });
      // The same graph object, changed after it ran (its shape's hash is made once per compiled shape).
      const same = approvalGraph();
      const before = await same.run('SO2', { store });
      same.addNode('extra', () => null);
      await expect(resumeRun(same, before.runId, { reply: 'ok' }, { store })).rejects.toMatchObject({ code: 'graph_changed' });
      await expect(resumeRun(approvalGraph(), 'no-such-run', { reply: 'ok' }, { store })).rejects.toMatchObject({ code: 'run_not_found' });
      expect((await store.getRun(run.runId))!.status).toBe('waiting');
    });

    it('cancels a waiting run and a run in flight', async () => {
      const waiting = await approvalGraph().run('SO1', { store });
      expect((await cancelRun(store, waiting.runId)).status).toBe('cancelled');
      await expect(resumeRun(approvalGraph(), waiting.runId, { reply: 'late' }, { store })).rejects.toMatchObject({ code: 'run_finished' });
      await expect(cancelRun(store, waiting.runId)).rejects.toMatchObject({ code: 'run_finished' });

      let nodeStarted!: () => void;
      const inFlight = new Promise<void>((resolve) => (nodeStarted = resolve));
      const slow = new StateGraph({ name: 'slow' })
        .addNode('wait', (ctx) => new Promise((resolve) => {
          ctx.signal.addEventListener('abort', () => resolve(null));
          nodeStarted();
        }))
        .start('wait');
      const pending = slow.run('x', { store, runId: `slow-${label}` });
      await inFlight;
      await cancelRun(store, `slow-${label}`);
      const run = await pending;
      expect(run.status).toBe('cancelled');
      expect((await store.getRun(run.runId))!.status).toBe('cancelled');
      // The run's last events still reach the log after the cancellation won the compare-and-set.
      const stored = await store.listEvents(run.runId);
      expect(stored.map((e) => e.type).slice(-2)).toEqual(['node.cancelled', 'run.completed']);
      expect(stored.map((e) => e.seq)).toEqual(stored.map((_, i) => i + 1));
    });

    it('cancels an interrupted run whose last events came with step records (the row\'s lastSeq lags behind them)', async () => {
      const runId = `lagging-${label}`;
      await store.insertRun({ runId, graphName: 'g', graphHash: 'h', status: 'running', owner: null, leaseExpiresAt: null, snapshot: { context: { n: 0 } } });
      const events = [1, 2, 3].map((seq) => ({ runId, seq, type: 'node.entered', at: seq, data: { type: 'node.entered', runId, seq, at: seq } }));
      if (store.appendSteps) expect(await store.appendSteps(runId, 1, ['{"at":{"context":{"set":{"n":1}}}}'], events)).toBe(true);
      else expect(await store.updateRun(runId, 1, { lastSeq: 3 }, events)).not.toBeNull();
      const before = (await store.getRun(runId))!;
      expect(await store.updateRun(runId, before.version, { status: 'interrupted' })).not.toBeNull();
      expect((await cancelRun(store, runId)).status).toBe('cancelled');
      const stored = await store.listEvents(runId);
      expect(stored.map((e) => [e.seq, e.type])).toEqual([[1, 'node.entered'], [2, 'node.entered'], [3, 'node.entered'], [4, 'run.cancelled']]);
      expect((await store.getRun(runId))!.lastSeq).toBe(4);
    });

    it('fails a run whose state cannot be stored, naming the key', async () => {
      const graph = new StateGraph({ name: 'bad-state' })
        .addNode('a', (ctx) => {
          ctx.put('when', new Date(0));
          return 'a';
        })
        .addNode('b', () => 'b')
        .start('a')
        .addEdge('a', 'b');
      const run = await graph.run('x', { store });
      expect(run.status).toBe('failed');
      // Refused where it is written (as in memory), so the node fails and the run is stored failed.
      expect(run.error?.code).toBe('state_not_json');
      expect(run.error?.message).toMatch(/state key "when" \(written by node "a"\) holds a Date/);
      expect(run.path).toEqual(['a']);
      expect(await store.getRun(run.runId)).toMatchObject({ status: 'failed', error: { code: 'state_not_json' } });
    });

    it('stores no API key anywhere, even when a node puts it in the state and the output', async () => {
      const key = 'sk-test-DO-NOT-STORE-1234567890abcdef';
      const saved = process.env.OPENAI_API_KEY;
      process.env.OPENAI_API_KEY = key;
      try {
        const graph = new StateGraph({ name: 'leaky' })
          .addNode('a', (ctx) => {
            ctx.put('config', { apiKey: key, baseURL: 'http://127.0.0.1:1' });
            ctx.put('note', `using key ${key}`);
            return `the key is ${key}`;
          })
          .addNode('b', () => {
            throw new Error(`upstream rejected ${key}`);
          })
          .start('a')
          .addEdge('a', 'b');
        const run = await graph.run('x', { store });
        expect(run.status).toBe('failed');
        const dump = await target.dump();
        expect(dump).toContain(run.runId);
        expect(dump).not.toContain(key);
      } finally {
        if (saved === undefined) delete process.env.OPENAI_API_KEY;
        else process.env.OPENAI_API_KEY = saved;
      }
    });

    it('grows storage per step with the delta, not with the whole state', async () => {
      const big = 'x'.repeat(10_000);
      const graph = new StateGraph({ name: 'big-state', maxSteps: 200 })
        .addNode('a', (ctx) => {
          if (ctx.get('big') === undefined) ctx.put('big', big);
          ctx.put('n', (ctx.get<number>('n') ?? 0) + 1);
          return null;
        })
        .start('a')
        .addEdge('a', 'a');
      const run = await graph.run('x', { store });
      expect(run.steps).toBe(200);
      // The stored state is exact: a long value that merely looks like base64 is data, and is kept.
      expect((await store.getRun(run.runId))!.snapshot).toMatchObject({ context: { state: { big } } });
      const size = await store.sizeOf(run.runId);
      // One snapshot (the 10 KB value once, plus the path), and small events per step.
      expect(size.snapshotBytes).toBeLessThan(10_000 + 200 * 8 + 3_000);
      expect(size.eventBytes / 200).toBeLessThan(1_500);
    });

    // Registered only for stores another process can open (not a MemoryRunStore): nothing is skipped.
    if (options.crossProcess ?? true) it('keeps a waiting run across processes: another process resumes it, a third is refused', async () => {
      const runId = `xproc-${label.toLowerCase()}-${Date.now()}`;
      const started = await runChild(['start', 'approval', 'SO20261002', runId], target.env);
      expect(started.output).toMatchObject({ runId, status: 'waiting' });
      const resumed = await runChild(['resume', runId, 'approved in process 2'], target.env);
      expect(resumed.output).toMatchObject({ status: 'completed', outputText: 'finished: approved in process 2 (reply=approved in process 2)' });
      const refused = await runChild(['resume', runId, 'again'], target.env);
      expect(refused.output).toMatchObject({ error: { name: 'RunStateError', code: 'run_finished' } });
    });
  });
}
