import { mkdtempSync } from 'node:fs';
import { createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MemoryRecorder, MemoryRunStore, OfflineModel, SqliteRunStore, createServer, type StoredEvent } from '../../src/index.js';
import { customerService } from '../../machines/customerService.js';
import { runCli } from '../support/runCli.js';

// The composite scenario: a policy lookup (retrieval), a refund estimate (order tools in a loop)
// and the sales report (the MCP server over stdio), each in a parallel specialist.
const MULTI = 'Explain the headphone return policy, the refundable amount for SO20261001, and the September sales report.';
// The order scenario: the tool loop in the main graph.
const ORDER = 'Check order SO20261001 for me and see how much can still be refunded.';

const dir = mkdtempSync(join(tmpdir(), 'sb-start-paths-'));
const stores: SqliteRunStore[] = [];
afterAll(async () => {
  for (const store of stores) await store.close();
});

/** Every stored event as "type @ path", counted: what a run stored, whatever order parallel lanes wrote it in. */
function kinds(events: ReadonlyArray<{ type: string; path?: unknown }>): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const e of events) {
    const key = `${e.type} @ ${String(e.path)}`;
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}

const fromStore = (events: StoredEvent[]) => kinds(events.map((e) => ({ type: e.type, path: e.data.path })));

async function storedKinds(file: string, runId: string): Promise<Record<string, number>> {
  const store = new SqliteRunStore({ file });
  stores.push(store);
  return fromStore(await store.listEvents(runId));
}

async function freePort(): Promise<number> {
  const server = createNetServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('what a run stores does not depend on how it was started', () => {
  it('run, start, inspect and POST /api/runs store the same events (tool calls and results, MCP call) for the same scenario', async () => {
    const db = (name: string) => join(dir, `${name}.db`);
    const port = await freePort();
    const [run, start, inspect] = await Promise.all([
      runCli(['--db', db('run'), 'run', MULTI, '--json']),
      runCli(['--db', db('start'), 'start', 'customer-service', MULTI, '--json']),
      runCli(['--db', db('inspect'), 'inspect', MULTI, '--no-wait', '--exit', '--port', String(port)]),
    ]);
    expect(run.status, run.stderr).toBe(0);
    expect(start.status, start.stderr).toBe(0);
    expect(inspect.status, inspect.stderr).toBe(0);
    const runId = (out: string) => /"runId":"([^"]+)"/.exec(out)?.[1] ?? /^run (\S+): completed$/m.exec(out)?.[1];

    const store = new SqliteRunStore({ file: db('http') });
    stores.push(store);
    const workbench = createServer({ store, graphs: [customerService({ model: new OfflineModel() })] });
    const res = await workbench.app.request('/api/runs?wait=true', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ graph: 'customer-service', message: MULTI }),
    });
    const posted = (await res.json()) as { runId: string; status: string };
    expect(posted.status).toBe('completed');
    const viaHttp = await workbench.app.request(`/api/runs/${posted.runId}/events`);
    const httpKinds = kinds((await viaHttp.json()) as Array<{ type: string; path: string }>);
    await workbench.close();

    const byRun = await storedKinds(db('run'), runId(run.stdout)!);
    // The scenario exercises what used to go missing: tool calls and results of the order
    // specialist and the MCP call of the report specialist.
    expect(byRun).toMatchObject({ 'tool.call @ root/tool[2]': 2, 'tool.result @ root/tool[2]': 2, 'tool.plan @ root/tool[2]': 3, 'mcp.call @ root/report[3]': 1 });
    expect(await storedKinds(db('start'), runId(start.stdout)!)).toEqual(byRun);
    expect(await storedKinds(db('inspect'), runId(inspect.stdout)!)).toEqual(byRun);
    expect(fromStore(await store.listEvents(posted.runId))).toEqual(byRun);
    expect(httpKinds).toEqual(byRun);
  });

  it('graph.run and graph.stream store and record the same events, in memory and in a store', async () => {
    const graph = customerService({ model: new OfflineModel() });
    for (const message of [ORDER, MULTI]) {
      const ran = new MemoryRecorder();
      const runStore = new MemoryRunStore();
      const run = await graph.run(message, { store: runStore, recorders: [ran] });
      expect(run.status).toBe('completed');

      const streamed = new MemoryRecorder();
      const streamStore = new MemoryRunStore();
      let streamedRunId = '';
      for await (const event of graph.stream(message, { store: streamStore, recorders: [streamed] })) streamedRunId = event.runId;

      const recorded = kinds(ran.events);
      expect(recorded['tool.call @ ' + (message === ORDER ? 'root' : 'root/tool[2]')]).toBe(2);
      expect(recorded['tool.result @ ' + (message === ORDER ? 'root' : 'root/tool[2]')]).toBe(2);
      // Text deltas are live only: a stream gets them, nothing stores them.
      const withoutDeltas = (counts: Record<string, number>) => Object.fromEntries(Object.entries(counts).filter(([k]) => !k.startsWith('model.delta ')));
      expect(withoutDeltas(kinds(streamed.events))).toEqual(recorded);
      expect(fromStore(await runStore.listEvents(run.runId))).toEqual(recorded);
      expect(fromStore(await streamStore.listEvents(streamedRunId))).toEqual(recorded);

      // And without any store: a recorder alone sees the tool events too (what OpenTelemetry gets).
      const bare = new MemoryRecorder();
      await graph.run(message, { recorders: [bare] });
      expect(kinds(bare.events)).toEqual(recorded);
    }
  });
});
