import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  ErrorJson,
  EventJson,
  JSON_SCHEMA_VERSION,
  OfflineModel,
  RunAcceptedJson,
  RunDetailJson,
  RunJson,
  RunSummaryJson,
  SqliteRunStore,
  createServer,
} from '../../src/index.js';
import { customerService } from '../../machines/customerService.js';
import { refundApproval } from '../../machines/refundApproval.js';
import { runCli, type CliResult } from '../support/runCli.js';

const db = join(mkdtempSync(join(tmpdir(), 'sb-json-')), 'runs.db');
const cli = (...args: string[]) => runCli(['--db', db, ...args]);
// Strict forms of the shapes: a field the documented shape does not list fails the test.
const Run = RunJson.strict();
const Summary = RunSummaryJson.strict();
const Detail = RunDetailJson.strict();
const Error_ = ErrorJson.strict();
/** What `show --json` prints: the run in full and its events. */
const ShowJson = RunDetailJson.extend({ events: z.array(EventJson) }).strict();
const ORDER = 'Check order SO20261001 for me and see how much can still be refunded.';

/** Parses the one JSON line a command printed, with the schema (strict: no field the shape does not document). */
function printed<S extends z.ZodType>(schema: S, result: CliResult, stream: 'stdout' | 'stderr' = 'stdout'): z.infer<S> {
  const lines = result[stream].trim().split('\n');
  expect(lines, result[stream]).toHaveLength(1);
  return schema.parse(JSON.parse(lines[0]!));
}

const store = new SqliteRunStore({ file: db });
const workbench = createServer({ store, graphs: [customerService({ model: new OfflineModel() }), refundApproval()] });
afterAll(async () => {
  await workbench.close();
  await store.close();
});
async function http(path: string, init: RequestInit & { json?: unknown } = {}): Promise<{ status: number; body: unknown }> {
  const { json, ...rest } = init;
  const res = await workbench.app.request(path, { ...rest, ...(json === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(json) }) });
  return { status: res.status, body: await res.json() };
}

describe('one JSON shape per thing, shared by the CLI and the HTTP API', () => {
  it('prints runs, run summaries, a run in full with its events, and errors in the documented shapes', async () => {
    const [started, ran] = await Promise.all([cli('start', 'refund-approval', 'Refund SO20261001 please', '--json'), cli('run', ORDER, '--json')]);
    const waiting = printed(Run, started);
    expect(waiting).toMatchObject({ schemaVersion: JSON_SCHEMA_VERSION, status: 'waiting', path: ['draft', 'approve'], waiting: { nodeId: 'approve' }, error: null });
    const order = printed(Run, ran);
    // The whole run, not a digest: steps and the (redacted) shared state too.
    expect(order).toMatchObject({ status: 'completed', steps: 10, state: { orderId: 'SO20261001' } });
    expect(order.outputText).toContain('599.00 CNY');

    const [listed, shown] = await Promise.all([cli('runs', '--json'), cli('show', waiting.runId, '--json')]);
    const summaries = printed(z.array(Summary), listed);
    expect(summaries.map((r) => r.runId).sort()).toEqual([waiting.runId, order.runId].sort());
    expect(summaries.find((r) => r.runId === waiting.runId)).toMatchObject({ graph: 'refund-approval', status: 'waiting', input: 'Refund SO20261001 please', path: ['draft', 'approve'] });
    const detail = printed(ShowJson, shown);
    expect(detail).toMatchObject({ runId: waiting.runId, waiting: { nodeId: 'approve' }, state: { order: 'SO20261001' } });
    expect(detail.events.map((e) => e.seq)).toEqual(detail.events.map((_, i) => i + 1));
    expect(detail.events[0]).toMatchObject({ type: 'run.started', runId: waiting.runId, path: 'root' });

    // The HTTP API answers with the same shapes, and the same values for the same store.
    const apiList = await http('/api/runs');
    expect(z.array(Summary).parse(apiList.body)).toEqual(summaries);
    const apiRun = await http(`/api/runs/${waiting.runId}`);
    const { events, ...withoutEvents } = detail;
    expect(Detail.parse(apiRun.body)).toEqual({ ...withoutEvents, live: false });
    const apiEvents = await http(`/api/runs/${waiting.runId}/events`);
    expect(z.array(EventJson).parse(apiEvents.body)).toEqual(events);

    const resumed = printed(Run, await cli('resume', waiting.runId, '--reply', 'approved', '--json'));
    expect(resumed).toMatchObject({ runId: waiting.runId, status: 'completed', waiting: null });
    const other = printed(Run, await cli('start', 'refund-approval', 'SO20261004', '--json'));
    const cancelled = printed(Summary, await cli('cancel', other.runId, '--json'));
    expect(cancelled).toMatchObject({ runId: other.runId, status: 'cancelled' });
    expect(Detail.parse((await http(`/api/runs/${order.runId}`)).body).status).toBe('completed');
    const recovered = await cli('recover', '--json');
    expect(JSON.parse(recovered.stdout)).toEqual([]);
  });

  it('answers starts, waits and the event stream over HTTP in the same shapes', async () => {
    const accepted = await http('/api/runs', { method: 'POST', json: { graph: 'refund-approval', message: 'Refund SO20261002 please' } });
    expect(accepted.status).toBe(202);
    const { runId } = RunAcceptedJson.strict().parse(accepted.body);
    const waited = await http('/api/runs?wait=true', { method: 'POST', json: { message: ORDER } });
    expect(Run.parse(waited.body)).toMatchObject({ status: 'completed', steps: 10 });
    await workbench.runs.drain();
    const resumed = await http(`/api/runs/${runId}/resume?wait=true`, { method: 'POST', json: { reply: 'approved' } });
    expect(Run.parse(resumed.body)).toMatchObject({ runId, status: 'completed' });

    // A finished run's stream replays its events and ends: every frame is an EventJson.
    const stream = await workbench.app.request(`/api/runs/${runId}/stream`);
    const blocks = (await stream.text()).split('\n\n').filter((b) => b.startsWith('id: '));
    expect(blocks.length).toBeGreaterThan(3);
    for (const block of blocks) {
      const data = block.split('\n').find((l) => l.startsWith('data: '))!;
      expect(EventJson.parse(JSON.parse(data.slice('data: '.length))).seq).toBe(Number(block.slice(4, block.indexOf('\n'))));
    }
  });

  it('reports errors as an ErrorJson with a code: CLI on stderr (stdout clean), HTTP in the body', async () => {
    const [missing, badStatus, badOption, badPort] = await Promise.all([
      cli('show', 'no-such-run', '--json'),
      cli('runs', '--status', 'sleeping', '--json'),
      cli('runs', '--bogus', '--json'),
      cli('run', ORDER, '--graph', 'nope', '--json'),
    ]);
    expect(missing.status).toBe(1);
    expect(printed(Error_, missing, 'stderr').error).toMatchObject({ code: 'run_not_found', message: 'run not found: no-such-run' });
    expect(badStatus.status).toBe(2);
    expect(printed(Error_, badStatus, 'stderr').error.message).toContain('--status must be one of');
    expect(printed(Error_, badOption, 'stderr').error.code).toBe('usage');
    expect(printed(Error_, badPort, 'stderr').error.code).toBe('usage');
    for (const result of [missing, badStatus, badOption, badPort]) expect(result.stdout).toBe('');

    const notFound = await http('/api/runs/no-such-run');
    expect(notFound.status).toBe(404);
    expect(Error_.parse(notFound.body).error.code).toBe('run_not_found');
    const badBody = await http('/api/runs', { method: 'POST', json: { message: 42 } });
    expect(badBody.status).toBe(400);
    expect(Error_.parse(badBody.body).error.code).toBe('bad_request');
  });
});
