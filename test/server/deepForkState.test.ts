import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteRunStore, StateGraph, startServer, type RunningServer } from '../../src/index.js';

/**
 * A fork whose edited state nests deeper than a run can keep is refused as state_not_json naming the
 * key and how to fix it, however deep it is: 100,000 levels (a 500 KB body) used to overflow the
 * stack of the checks, and the answer said only "fork: Maximum call stack size exceeded"
 * (invalid_input). Nothing is stored.
 */
const graph = new StateGraph({ name: 'two' }).addNode('a', (ctx) => (ctx.put('x', 1), 'a')).addNode('b', () => 'b').start('a').addEdge('a', 'b');
const dir = mkdtempSync(join(tmpdir(), 'sb-deep-fork-'));
let store: SqliteRunStore;
let server: RunningServer;

async function post(path: string, body: string): Promise<{ status: number; body: any }> {
  const res = await fetch(new URL(path, server.url), { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  return { status: res.status, body: await res.json() };
}

beforeAll(async () => {
  store = new SqliteRunStore({ file: join(dir, 'runs.db') });
  server = await startServer({ store, graphs: [graph], port: 0 });
});

afterAll(async () => {
  await server?.stop();
  await store?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('POST /api/runs/:id/fork with a deeply nested state', () => {
  it.each([
    ['an object nested 100,000 levels', '{"a":'.repeat(100_000) + '1' + '}'.repeat(100_000)],
    ['an array nested 50,000 levels', '['.repeat(50_000) + ']'.repeat(50_000)],
    ['an object nested 1,500 levels (refused as before)', '{"a":'.repeat(1500) + '1' + '}'.repeat(1500)],
  ])('refuses %s as nested too deep, naming the key, and stores no run', async (_what, value) => {
    const parent = await post('/api/runs?wait=true', JSON.stringify({ message: 'go' }));
    expect(parent.body.status).toBe('completed');
    const before = (await store.listRuns()).length;
    const refused = await post(`/api/runs/${parent.body.runId}/fork?wait=true`, `{"at":1,"state":{"x":${value}}}`);
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe('state_not_json');
    expect(refused.body.error.message).toContain('state key "x"');
    expect(refused.body.error.message).toContain('nested more than 1000 levels deep');
    expect(refused.body.error.message).not.toContain('call stack');
    expect((await store.listRuns()).length).toBe(before);
  });

  it('refuses an engine key (ignored by a fork) nested 100,000 levels as invalid_input naming it', async () => {
    const parent = await post('/api/runs?wait=true', JSON.stringify({ message: 'go' }));
    const deep = '['.repeat(100_000) + ']'.repeat(100_000);
    const refused = await post(`/api/runs/${parent.body.runId}/fork?wait=true`, `{"at":1,"state":{"x":2,"lastResult":${deep}}}`);
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: 'invalid_input' });
    expect(refused.body.error.message).toContain('state key "lastResult" is nested more than 1000 levels deep');
  });
});
