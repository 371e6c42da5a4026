import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteRunStore, startServer, type RunningServer } from '../../src/index.js';
import { quickGraph } from '../fixtures/workbenchGraphs.js';
import { SseReader, seqs } from './sseClient.js';

const RUNS = 200;
let server: RunningServer;
let store: SqliteRunStore;

beforeAll(async () => {
  store = new SqliteRunStore({ file: join(mkdtempSync(join(tmpdir(), 'sb-200-')), 'runs.db') });
  server = await startServer({ store, graphs: [quickGraph()], port: 0 });
});
afterAll(async () => {
  await server.stop();
  await store.close();
});

/** Starts one run over HTTP, follows its stream to the end; resolves with what went wrong, if anything. */
async function oneRun(i: number): Promise<string | null> {
  const res = await fetch(new URL('/api/runs', server.url), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ message: `run ${i}` }) });
  if (res.status !== 202) return `start ${i}: ${res.status} ${await res.text()}`;
  const { runId } = (await res.json()) as { runId: string };
  const reader = new SseReader(await fetch(new URL(`/api/runs/${runId}/stream`, server.url)));
  const messages = await reader.until((m) => m.event === 'end');
  const ids = seqs(messages);
  const last = messages.at(-2);
  if (messages.at(-1)?.data !== '{"status":"completed"}') return `run ${i}: stream ended with ${JSON.stringify(messages.at(-1))}`;
  if (ids.join() !== ids.map((_, k) => k + 1).join()) return `run ${i}: seqs ${ids.join()}`;
  const final = JSON.parse(last?.data ?? '{}') as { type?: string; run?: { outputText?: string } };
  if (final.type !== 'run.completed' || final.run?.outputText !== `run ${i}+1+2+3`) return `run ${i}: last event ${last?.data}`;
  return null;
}

describe('many runs at once', () => {
  it(`completes ${RUNS} concurrent runs started over HTTP, each with its own SSE subscriber, with 0 errors`, async () => {
    const outcomes = await Promise.all(Array.from({ length: RUNS }, (_, i) => oneRun(i).catch((error: unknown) => `run ${i}: ${String(error)}`)));
    expect(outcomes.filter((o) => o !== null)).toEqual([]);
    const completed = await store.listRuns({ status: 'completed', limit: 1000 });
    expect(completed).toHaveLength(RUNS);
    const health = (await (await fetch(new URL('/api/health', server.url))).json()) as { subscribers: number };
    expect(health.subscribers).toBe(0);
  }, 120_000);
});
