import { appendFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { RunManager, StateGraph, forkRun, resumeRun, retryRun, stateAt, type RunStore } from '../../src/index.js';
import { useExecLog } from '../support/execLog.js';
import { memoryTarget, postgresTarget, sqliteTarget, useStoreTarget, type StoreTarget } from '../persistence/storeTargets.js';
import { signoffGraph } from '../fixtures/timeTravelGraphs.js';

/**
 * A fork that is continued by something other than `forkRun` itself — a resume, a recovery, an
 * operator's retry — still replays its parent's steps rather than executing them again.
 */
const { executedSince, file: execLog } = useExecLog();

/** a → b → c → d, each logged when it executes; `d` fails while `failing.on` is set. */
const failing = { on: false };
function chainGraph(): StateGraph {
  const node = (id: string) => (ctx: { put(key: string, value: unknown): void }, request: { input: unknown }) => {
    appendFileSync(execLog(), `${id}\n`);
    if (id === 'd' && failing.on) throw new Error('payments service unavailable');
    ctx.put(id, true);
    return `${String(request.input)}>${id}`;
  };
  return new StateGraph({ name: 'chain' })
    .addNode('a', node('a'))
    .addNode('b', node('b'))
    .addNode('c', node('c'))
    .addNode('d', node('d'))
    .start('a')
    .addEdge('a', 'b')
    .addEdge('b', 'c')
    .addEdge('c', 'd');
}

/** The store, with the claims of one run refused once (another process took it, as far as the caller can tell). */
function refusingClaims(store: RunStore, stuck: { runId: string | null }): RunStore {
  return new Proxy(store, {
    get(target, key, receiver) {
      if (key === 'updateRun') {
        return (runId: string, version: number, patch: { status?: string }, events?: unknown) => {
          if (runId === stuck.runId && patch.status === 'running') {
            stuck.runId = null;
            return Promise.resolve(null);
          }
          return target.updateRun(runId, version, patch as never, events as never);
        };
      }
      const value = Reflect.get(target, key, receiver) as unknown;
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

const targets: [string, () => StoreTarget][] = [
  ['SQLite', sqliteTarget],
  ['PostgreSQL', postgresTarget],
  ['memory', memoryTarget],
];

describe.each(targets)('a fork continued on %s', (_name, makeTarget) => {
  const target = useStoreTarget(makeTarget);

  it('left waiting at a replayed human node: a reply is refused, a resume without one (or recover) gives it the reply the parent got', async () => {
    const stuck = { runId: null as string | null };
    const store = refusingClaims(target().store, stuck);
    const runs = new RunManager({ store, graphs: [signoffGraph()] });
    const parent = await runs.resume((await runs.start('signoff', 'contract')).runId, { reply: 'signed by Ana' });
    expect(parent).toMatchObject({ status: 'completed', outputText: 'doc for contract: signed by Ana' });
    const clean = await runs.fork(parent.runId, { at: 3 });
    expect(clean).toMatchObject({ status: 'completed', outputText: parent.outputText });

    for (const goOn of ['resume', 'recover'] as const) {
      executedSince();
      // The claim of forkRun's own resume is refused: the fork is left waiting at step 2, which it replays.
      stuck.runId = `stuck-${goOn}`;
      await expect(forkRun(signoffGraph(), parent.runId, { at: 3 }, { store, runId: stuck.runId })).rejects.toMatchObject({ code: 'run_conflict' });
      expect(await store.getRun(`stuck-${goOn}`)).toMatchObject({ status: 'waiting' });
      await expect(resumeRun(signoffGraph(), `stuck-${goOn}`, { reply: 'signed by Bob' }, { store })).rejects.toMatchObject({ code: 'fork_unsupported' });
      const run =
        goOn === 'resume'
          ? await resumeRun(signoffGraph(), `stuck-${goOn}`, undefined, { store })
          : ((await runs.recover()).find((o) => o.runId === `stuck-${goOn}`) as { run: unknown } | undefined)?.run;
      expect(run, goOn).toMatchObject({ status: 'completed', outputText: 'doc for contract: signed by Ana', path: ['draft', 'approve', 'finish'] });
      expect(executedSince(), goOn).toEqual([]);
    }
  });

  it('retried after it failed, replays its parent’s steps again instead of executing them, and still names its parent', async () => {
    const { store } = target();
    failing.on = false;
    const runs = new RunManager({ store, graphs: [chainGraph()] });
    const parent = await runs.start('chain', 'order');
    expect(parent).toMatchObject({ status: 'completed', outputText: 'order>a>b>c>d' });
    executedSince();
    failing.on = true;
    const fork = await runs.fork(parent.runId, { at: 2, state: { a: true, b: true, edited: 'yes' } }).catch((e: unknown) => e);
    const forkId = (await store.listRuns({ limit: 10 })).find((r) => r.runId !== parent.runId)!.runId;
    expect(fork).toMatchObject({ status: 'failed' });
    expect(executedSince()).toEqual(['c', 'd']);
    failing.on = false;
    const retried = await retryRun(chainGraph(), forkId, { store });
    expect(retried.run).toMatchObject({ status: 'completed', outputText: 'order>a>b>c>d' });
    // The edit made after the last replayed step is made again too.
    expect(Object.fromEntries(retried.run.state)).toMatchObject({ a: true, b: true, c: true, d: true, edited: 'yes' });
    expect(executedSince()).toEqual(['c', 'd']);
    expect(await stateAt(store, forkId, 4)).toMatchObject({ forkOf: { runId: parent.runId, step: 2 } });
  });
});
