import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { END, SqliteRunStore, StateGraph, humanNode, startServer, type RunningServer } from '../../src/index.js';

/**
 * A reply nested deeper than a run can keep is a bad body, refused with 400 before the run moves:
 * thousands of levels (a 25 KB body) are not an internal error, and a thousand do not fail the
 * waiting run when its snapshot cannot hold them. The run takes a proper reply after.
 */
const textGraph = new StateGraph({ name: 'ask-text' }).addNode('ask', humanNode({ reason: 'say something' })).addNode('done', (ctx) => `got ${String(ctx.get('humanReply'))}`).start('ask').addEdge('ask', 'done').addEdge('done', END);
const jsonGraph = new StateGraph({ name: 'ask-json' })
  .addNode('ask', humanNode({ reason: 'send JSON', reply: z.json() }))
  .addNode('done', (ctx) => `got ${JSON.stringify(ctx.get('humanReply')).length} chars`)
  .start('ask')
  .addEdge('ask', 'done')
  .addEdge('done', END);

const dir = mkdtempSync(join(tmpdir(), 'sb-deep-reply-'));
let store: SqliteRunStore;
let server: RunningServer;
const logged: string[] = [];

const nestedObject = (levels: number) => '{"a":'.repeat(levels) + '1' + '}'.repeat(levels);
const nestedArray = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);

async function post(path: string, body: string): Promise<{ status: number; body: any }> {
  const res = await fetch(new URL(path, server.url), { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  return { status: res.status, body: await res.json() };
}

async function waitingRun(graph: string): Promise<string> {
  const started = await post('/api/runs?wait=true', JSON.stringify({ graph, message: 'go' }));
  expect(started).toMatchObject({ status: 200, body: { status: 'waiting' } });
  return started.body.runId as string;
}

beforeAll(async () => {
  store = new SqliteRunStore({ file: join(dir, 'runs.db') });
  server = await startServer({ store, graphs: [textGraph, jsonGraph], port: 0, log: (line) => logged.push(line) });
});

afterAll(async () => {
  await server?.stop();
  await store?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('POST /api/runs/:id/resume with a deeply nested reply', () => {
  it.each([
    ['ask-text', 'an object nested 5,000 levels', nestedObject(5000)],
    ['ask-text', 'an array nested 100,000 levels', nestedArray(100_000)],
    ['ask-json', 'an object nested 5,000 levels', nestedObject(5000)],
    ['ask-json', 'an array nested 1,002 levels', nestedArray(1002)],
    ['ask-json', 'an array nested 999 levels', nestedArray(999)],
    ['ask-json', 'an array nested 501 levels', nestedArray(501)],
  ])('%s: refuses %s as a bad body and the run still waits for a reply', async (graph, _what, reply) => {
    const runId = await waitingRun(graph);
    const refused = await post(`/api/runs/${runId}/resume?wait=true`, `{"reply":${reply}}`);
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe('bad_request');
    expect(refused.body.error.message).toContain('reply is nested more than 500 levels deep');
    expect(logged).toEqual([]);
    expect((await store.getRun(runId))?.status).toBe('waiting');

    const answered = await post(`/api/runs/${runId}/resume?wait=true`, JSON.stringify({ reply: graph === 'ask-text' ? 'yes' : { ok: [1, 2] } }));
    expect(answered).toMatchObject({ status: 200, body: { status: 'completed', outputText: graph === 'ask-text' ? 'got yes' : 'got 12 chars' } });
  });

  it.each([100, 500])('takes a reply nested %i levels for a node with a JSON reply schema', async (levels) => {
    const runId = await waitingRun('ask-json');
    const answered = await post(`/api/runs/${runId}/resume?wait=true`, `{"reply":${nestedObject(levels)}}`);
    expect(answered).toMatchObject({ status: 200, body: { status: 'completed', outputText: `got ${nestedObject(levels).length} chars` } });
  });
});
