import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryRunStore, SqliteRunStore, StateGraph, SwitchboardError, type RunStore, type WorkflowContext } from '../../../src/index.js';

const stores: RunStore[] = [];
const sqlite = (maxValueBytes?: number) => {
  const store = new SqliteRunStore({ file: join(mkdtempSync(join(tmpdir(), 'sb-err-')), 'runs.db'), ...(maxValueBytes ? { maxValueBytes } : {}) });
  stores.push(store);
  return store;
};
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
});

/**
 * write → after; `after` counts its executions, which must stay 0 once a write failed. `write` may
 * return a raw response, which the snapshot holds as it is (state writes are checked when put).
 */
function writer(write: (ctx: WorkflowContext) => unknown) {
  const executed = { after: 0 };
  const graph = new StateGraph({ name: 'writer' })
    .addNode('write', (ctx) => {
      const rawResponse = write(ctx);
      return rawResponse === undefined ? 'written' : { outputText: 'written', rawResponse };
    })
    .addNode('after', () => {
      executed.after += 1;
      return 'after';
    })
    .start('write')
    .addEdge('write', 'after');
  return { graph, executed };
}

describe('a stored run whose state cannot be stored', () => {
  it('fails with not_json naming the key path of a circular value, runs nothing after it and stores the failure', async () => {
    const store = sqlite();
    const { graph, executed } = writer(() => {
      const order: Record<string, unknown> = { id: 'SO1' };
      order.parent = order;
      return { order };
    });
    const run = await graph.run('go', { store });
    expect(run.status).toBe('failed');
    expect(run.error).toBeInstanceOf(SwitchboardError);
    expect(run.error?.code).toBe('not_json');
    expect(run.error?.message).toMatch(/result\.rawResponse\.order\.parent refers back to itself/);
    expect(executed.after).toBe(0);
    expect(await store.getRun(run.runId)).toMatchObject({ status: 'failed', error: { code: 'not_json' } });
  });

  it('fails with value_too_large over the store’s limit, runs nothing after it and stores the failure', async () => {
    for (const store of [sqlite(64 * 1024), new MemoryRunStore({ maxValueBytes: 64 * 1024 })]) {
      const { graph, executed } = writer((ctx) => ctx.put('document', 'word '.repeat(20_000)));
      const run = await graph.run('go', { store });
      expect(run.status).toBe('failed');
      expect(run.error?.code).toBe('value_too_large');
      expect(run.error?.message).toMatch(/at most 64 KiB/);
      expect(run.error?.message).toMatch(/document/);
      expect(executed.after).toBe(0);
      expect(await store.getRun(run.runId)).toMatchObject({ status: 'failed', error: { code: 'value_too_large' } });
    }
  });

  it('fails with value_too_large for a value nested thousands of levels deep, without overflowing the stack', async () => {
    const store = sqlite();
    const { graph } = writer(() => {
      let deep: unknown = 'bottom';
      for (let i = 0; i < 100_000; i++) deep = { next: deep };
      return deep;
    });
    const run = await graph.run('go', { store });
    expect(run.status).toBe('failed');
    expect(run.error?.code).toBe('value_too_large');
    expect(run.error?.message).toMatch(/nested more than 1000 levels/);
  });

  it('fails with value_too_large when JSON.stringify overflows the stack on the final snapshot (a deep value from the last node, on an already deep stack)', async () => {
    const store = sqlite();
    let deep: unknown = 'bottom';
    for (let i = 0; i < 5_000; i++) deep = { next: deep };
    const graph = new StateGraph({ name: 'deep-last' })
      .addNode('first', () => 'first')
      .addNode('last', () => ({ outputText: 'last', rawResponse: deep }))
      .start('first')
      .addEdge('first', 'last');
    // How deep JSON.stringify may go depends on the stack left where it is called; here it has none.
    const stringify = JSON.stringify;
    const holdsDeep = (value: unknown): boolean => {
      const seen = new Set<unknown>();
      const stack = [value];
      while (stack.length > 0) {
        const v = stack.pop();
        if (v === deep) return true;
        if (v !== null && typeof v === 'object' && !seen.has(v)) (seen.add(v), stack.push(...Object.values(v)));
      }
      return false;
    };
    JSON.stringify = ((value: unknown, ...rest: never[]) => {
      if (holdsDeep(value)) throw new RangeError('Maximum call stack size exceeded');
      return stringify(value, ...rest);
    }) as typeof JSON.stringify;
    let run;
    try {
      run = await graph.run('go', { store });
      expect(run.status).toBe('failed');
      expect(run.error?.code).toBe('value_too_large');
      expect(run.error?.message).toMatch(/rawResponse\.next.*nested more than 1000 levels/);
    } finally {
      JSON.stringify = stringify;
    }
    expect(await store.getRun(run.runId)).toMatchObject({ status: 'failed', error: { code: 'value_too_large' } });
  });

  it('reports a store that throws plain errors as a typed failure of the run, and stops the run at that commit', async () => {
    const inner = sqlite();
    let writes = 0;
    const failSecond = <A extends unknown[], R>(write: (...args: A) => Promise<R>) => (...args: A): Promise<R> => {
      writes += 1;
      if (writes === 2) throw new TypeError('socket hang up');
      return write(...args);
    };
    const flaky: RunStore = Object.assign(Object.create(Object.getPrototypeOf(inner) as object) as RunStore, {
      insertRun: inner.insertRun.bind(inner),
      getRun: inner.getRun.bind(inner),
      listRuns: inner.listRuns.bind(inner),
      renewLease: inner.renewLease.bind(inner),
      listEvents: inner.listEvents.bind(inner),
      getJournal: inner.getJournal.bind(inner),
      putJournal: inner.putJournal.bind(inner),
      sizeOf: inner.sizeOf.bind(inner),
      close: inner.close.bind(inner),
      updateRun: failSecond(inner.updateRun.bind(inner)),
      appendSteps: failSecond(inner.appendSteps.bind(inner)),
    });
    let executed = 0;
    const steps = 2_000;
    const loop = new StateGraph({ name: 'loop', maxSteps: steps })
      .addNode('a', () => void (executed += 1))
      .addNode('b', () => void (executed += 1))
      .start('a')
      .addEdge('a', 'b')
      .addEdge('b', 'a');
    const run = await loop.run('go', { store: flaky });
    expect(run.status).toBe('failed');
    expect(run.error).toBeInstanceOf(SwitchboardError);
    expect(run.error?.code).toBe('store_unavailable');
    expect(run.error?.message).toMatch(/socket hang up/);
    // Steps are committed in groups: the run stops at the commit that failed, long before its end.
    expect(executed).toBeGreaterThan(0);
    expect(executed).toBeLessThan(steps / 4);
    expect(await inner.getRun(run.runId)).toMatchObject({ status: 'failed', error: { code: 'store_unavailable' } });
  });

  it('still ends a run with a typed failure (not a rejection) when the store is gone for good, reads included', async () => {
    const inner = sqlite();
    let down = false;
    let writes = 0;
    const gone: RunStore = new Proxy(inner, {
      get(target, key, receiver) {
        const value = Reflect.get(target, key, receiver) as unknown;
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          if ((key === 'updateRun' || key === 'appendSteps') && ++writes === 2) down = true;
          if (down && key !== 'close') return Promise.reject(new TypeError('connect ECONNREFUSED 127.0.0.1:5432'));
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
    const loop = new StateGraph({ name: 'loop-gone', maxSteps: 2_000 })
      .addNode('a', () => null)
      .addNode('b', () => null)
      .start('a')
      .addEdge('a', 'b')
      .addEdge('b', 'a');
    const run = await loop.run('go', { store: gone });
    expect(run.status).toBe('failed');
    expect(run.error?.code).toBe('store_unavailable');
    expect(run.error?.message).toMatch(/ECONNREFUSED/);
    // What the store last held is left to recovery: a running row whose lease runs out.
    expect(await inner.getRun(run.runId)).toMatchObject({ status: 'running' });
  });
});
