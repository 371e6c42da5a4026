import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JsonlRecorder, MemoryRecorder, SqliteRunStore, StateGraph, humanNode, resumeRun, type TraceEvent } from '../../src/index.js';

const dir = mkdtempSync(join(tmpdir(), 'sb-protocol-'));
const store = new SqliteRunStore({ file: join(dir, 'runs.db') });
const FAKE_KEY = 'sk-fake-0123456789abcdefABCDEF0123456789';
const PIXELS = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg';
const IMAGE_URL = `data:image/png;base64,${PIXELS}`;
const RAW_BLOB = Buffer.alloc(600, 7).toString('base64');
let savedKey: string | undefined;

beforeAll(() => {
  savedKey = process.env.OPENAI_API_KEY;
  process.env.OPENAI_API_KEY = FAKE_KEY;
});
afterAll(async () => {
  if (savedKey === undefined) delete process.env.OPENAI_API_KEY;
  else process.env.OPENAI_API_KEY = savedKey;
  await store.close();
});

/** A graph that waits for a human in the middle and handles secrets and images on both sides of the wait. */
function approvalGraph() {
  return new StateGraph({ name: 'leaky-approval' })
    .addNode('ingest', (ctx, request) => {
      ctx.put('image', IMAGE_URL);
      ctx.put('apiKeyEcho', `the key is ${FAKE_KEY}`);
      ctx.put('config', { apiKey: FAKE_KEY, headers: { Authorization: `Bearer ${FAKE_KEY}` } });
      ctx.put('__privateNote', 'engine-internal');
      ctx.put('upload', RAW_BLOB);
      return { outputText: `got ${String(request.input)} with ${IMAGE_URL}`, rawResponse: { key: FAKE_KEY, bytes: [IMAGE_URL] } };
    })
    .addNode('approve', humanNode({ reason: (ctx) => `approve ${String(ctx.get('image')).slice(0, 30)}` }))
    .addNode('finish', (ctx) => {
      ctx.put('finalImage', IMAGE_URL);
      return `approved with ${FAKE_KEY} and ${String(ctx.get('humanReply'))}`;
    })
    .start('ingest')
    .addEdge('ingest', 'approve')
    .addEdge('approve', 'finish');
}

function expectClean(text: string, where: string): void {
  expect(text.length, where).toBeGreaterThan(0);
  expect(text.includes(FAKE_KEY), `${where} contains the API key`).toBe(false);
  expect(text.includes(PIXELS), `${where} contains image bytes`).toBe(false);
  expect(text.includes(RAW_BLOB.slice(0, 64)), `${where} contains a base64 blob`).toBe(false);
  expect(text.includes('__privateNote'), `${where} contains a __ key`).toBe(false);
}

describe('trace protocol', () => {
  it('numbers events 1..N without gaps across a wait and a resume, in the store and in every recorder', async () => {
    const file = join(dir, 'resume.jsonl');
    const jsonl = new JsonlRecorder(file);
    const memory = new MemoryRecorder();
    const graph = approvalGraph();
    const waiting = await graph.run('refund SO1', { store, recorders: [jsonl, memory] });
    expect(waiting.status).toBe('waiting');
    const firstLeg = memory.events.length;
    const done = await resumeRun(graph, waiting.runId, { reply: 'ok' }, { store, recorders: [jsonl, memory] });
    expect(done.status).toBe('completed');
    expect(memory.events.length).toBeGreaterThan(firstLeg);

    const stored = await store.listEvents(waiting.runId);
    const seqs = stored.map((e) => e.seq);
    expect(seqs).toEqual(seqs.map((_, i) => i + 1));
    expect(memory.events.map((e) => e.seq)).toEqual(seqs);
    const lines = readFileSync(file, 'utf8').trimEnd().split('\n').map((l) => JSON.parse(l) as TraceEvent);
    expect(lines.map((e) => e.seq)).toEqual(seqs);
    expect(stored.map((e) => e.type)).toEqual(lines.map((e) => e.type));
    expect(lines.map((e) => e.type)).toContain('run.resumed');
    expect(new Set(lines.map((e) => e.traceId)).size).toBe(1);
    expect((await store.getRun(waiting.runId))?.lastSeq).toBe(seqs.length);
  });

  it('lets no API key, image bytes or __ key out through the recorders or the store', async () => {
    const file = join(dir, 'leak.jsonl');
    const graph = approvalGraph();
    const waiting = await graph.run('look at this', { store, recorders: [new JsonlRecorder(file)] });
    await resumeRun(graph, waiting.runId, { reply: `fine, ${IMAGE_URL}` }, { store, recorders: [new JsonlRecorder(file)] });

    const jsonl = readFileSync(file, 'utf8');
    expectClean(jsonl, 'the JSONL trace');
    expect(jsonl).toContain('[image]');
    expect(jsonl).toContain('[redacted]');
    expectClean(JSON.stringify(await store.listEvents(waiting.runId)), 'the stored event log');
    const record = await store.getRun(waiting.runId);
    expectClean(JSON.stringify({ ...record, snapshot: null }), 'the stored run row');
    const snapshot = JSON.stringify(record?.snapshot);
    expect(snapshot.includes(FAKE_KEY)).toBe(false);
    expect(snapshot.includes(PIXELS)).toBe(false);

    const memoryOnly = new MemoryRecorder();
    await approvalGraph().run('in memory', { recorders: [memoryOnly] });
    expectClean(JSON.stringify(memoryOnly.events), 'the in-memory trace');
  });
});
