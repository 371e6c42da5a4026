import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { SqliteRunStore, startServer, type RunningServer } from '../../src/index.js';
import { approvalGraph, quickGraph } from '../fixtures/workbenchGraphs.js';

/**
 * HEAD on a run's event stream (curl -I, a link checker, a monitor) is answered with the stream's
 * headers and no body, like any HEAD: nothing is subscribed, nothing is printed, and the connection
 * serves the next request.
 */
const dir = mkdtempSync(join(tmpdir(), 'sb-head-stream-'));
let store: SqliteRunStore;
let server: RunningServer;
const logged: string[] = [];

/** Sends `requests` on one connection and resolves with every byte the server sent until it closed it. */
function exchange(requests: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(server.port, '127.0.0.1', () => socket.end(requests));
    let received = '';
    socket.on('data', (bytes) => (received += bytes.toString('latin1')));
    socket.on('close', () => resolve(received));
    socket.on('error', reject);
  });
}

const request = (method: string, path: string, close = false) => `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\n${close ? 'Connection: close\r\n' : ''}\r\n`;

beforeAll(async () => {
  store = new SqliteRunStore({ file: join(dir, 'runs.db') });
  server = await startServer({ store, graphs: [quickGraph(), approvalGraph()], port: 0, log: (line) => logged.push(line) });
});

afterEach(() => vi.restoreAllMocks());

afterAll(async () => {
  await server?.stop();
  await store?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function startRun(graph: string): Promise<string> {
  const res = await fetch(new URL('/api/runs?wait=true', server.url), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ graph, message: 'go' }) });
  return ((await res.json()) as { runId: string }).runId;
}

describe('HEAD /api/runs/:id/stream', () => {
  it.each(['quick', 'approval'])('of a %s run: the stream headers, no body, nothing printed, and the connection goes on', async (graph) => {
    const runId = await startRun(graph);
    const printed = [vi.spyOn(console, 'error'), vi.spyOn(console, 'info'), vi.spyOn(console, 'warn')];
    const received = await exchange(request('HEAD', `/api/runs/${runId}/stream`) + request('GET', '/api/health', true));
    const [head, ...rest] = received.split(/(?=HTTP\/1\.1 )/);
    expect(head).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(head).toMatch(/\r\ncontent-type: text\/event-stream; charset=utf-8\r\n/i);
    // Nothing after the header block: no `retry:`, no event, no chunk.
    expect(head!.endsWith('\r\n\r\n')).toBe(true);
    expect(received).not.toContain('retry:');
    expect(rest).toHaveLength(1);
    expect(rest[0]).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(JSON.parse(rest[0]!.slice(rest[0]!.indexOf('\r\n\r\n') + 4))).toMatchObject({ ok: true, subscribers: 0, pausedSubscribers: 0 });
    for (const spy of printed) expect(spy).not.toHaveBeenCalled();
    expect(logged).toEqual([]);
  });

  it('of an unknown run: 404, as GET', async () => {
    const res = await fetch(new URL('/api/runs/no-such-run/stream', server.url), { method: 'HEAD' });
    expect(res.status).toBe(404);
  });
});
