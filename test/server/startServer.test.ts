import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ServerError, SqliteRunStore, startServer } from '../../src/index.js';
import { approvalGraph } from '../fixtures/workbenchGraphs.js';

const tempDb = () => join(mkdtempSync(join(tmpdir(), 'sb-start-')), 'runs.db');

describe('startServer', () => {
  it('refuses a host other than loopback without a token, before listening', async () => {
    const store = new SqliteRunStore({ file: tempDb() });
    const error = await startServer({ store, graphs: [approvalGraph()], host: '0.0.0.0', port: 0 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServerError);
    expect(error).toMatchObject({ code: 'server_config' });
    expect((error as Error).message).toContain('refusing to listen on 0.0.0.0 without a token');
    expect((error as Error).message).toContain('SWITCHBOARD_TOKEN');
    await store.close();
  });

  it('listens on 127.0.0.1 by default and says whether a token is required', async () => {
    const store = new SqliteRunStore({ file: tempDb() });
    const open = await startServer({ store, graphs: [approvalGraph()], port: 0 });
    expect(open.url).toBe(`http://127.0.0.1:${open.port}/`);
    expect(open.notices.join('\n')).toContain('no token required: listening on loopback only');
    expect((await fetch(new URL('/api/health', open.url))).status).toBe(200);
    await open.stop();

    const guarded = await startServer({ store, graphs: [approvalGraph()], port: 0, token: 'tok-abcdefgh12345678' });
    expect(guarded.notices.join('\n')).toContain('a token is required (SWITCHBOARD_TOKEN)');
    expect(guarded.notices.join('\n')).not.toContain('tok-abcdefgh12345678');
    expect((await fetch(new URL('/api/runs', guarded.url))).status).toBe(401);
    expect((await fetch(new URL('/api/runs', guarded.url), { headers: { authorization: 'Bearer tok-abcdefgh12345678' } })).status).toBe(200);
    await guarded.stop();
    await store.close();
  });
});

describe('history across restarts', () => {
  it('lists, replays and resumes a run stored by a server that has since stopped', async () => {
    const file = tempDb();
    const first = new SqliteRunStore({ file });
    const before = await startServer({ store: first, graphs: [approvalGraph()], port: 0 });
    const started = await fetch(new URL('/api/runs?wait=true', before.url), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ message: 'keep me' }) });
    const { runId } = (await started.json()) as { runId: string };
    await before.stop();
    await first.close();

    const second = new SqliteRunStore({ file });
    const after = await startServer({ store: second, graphs: [approvalGraph()], port: 0 });
    try {
      const listed = (await (await fetch(new URL('/api/runs', after.url))).json()) as Array<{ runId: string; status: string; input: string }>;
      expect(listed).toMatchObject([{ runId, status: 'waiting', input: 'keep me' }]);
      const resumed = await fetch(new URL(`/api/runs/${runId}/resume?wait=true`, after.url), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ reply: 'fine' }) });
      expect(await resumed.json()).toMatchObject({ status: 'completed', outputText: 'approved: fine' });
      const events = (await (await fetch(new URL(`/api/runs/${runId}/events`, after.url))).json()) as Array<{ seq: number }>;
      expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    } finally {
      await after.stop();
      await second.close();
    }
  });
});

describe('switchboard serve', () => {
  /** Runs the CLI until it prints its first line (or exits); returns the output so far and the process. */
  function serve(args: string[], env: Record<string, string> = {}) {
    const child = spawn(process.execPath, ['bin/switchboard.js', '--db', tempDb(), 'serve', ...args], {
      env: { ...process.env, SWITCHBOARD_DATABASE_URL: '', SWITCHBOARD_TOKEN: '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const listening = new Promise<string>((resolve, reject) => {
      child.stdout.on('data', () => out.includes('\n') && resolve(out));
      void exited.then((code) => reject(new Error(`exited ${code}: ${err}`)));
    });
    return { child, listening, exited, output: () => ({ out, err }) };
  }

  it('serves the page and the API on loopback until stopped', async () => {
    const run = serve(['--port', '0']);
    const line = await run.listening;
    const url = /Switchboard workbench on (http:\/\/127\.0\.0\.1:\d+\/)/.exec(line)?.[1];
    expect(url, line).toBeDefined();
    expect((await fetch(url!)).headers.get('content-type')).toContain('text/html');
    const scenarios = (await (await fetch(new URL('/api/scenarios', url))).json()) as Array<{ id: string }>;
    expect(scenarios.map((s) => s.id)).toContain('refund-approval');
    run.child.kill('SIGTERM');
    expect(await run.exited).toBe(0);
    expect(run.output().out).toContain('SIGTERM: stopping');
  }, 300_000);

  it('refuses --host 0.0.0.0 without SWITCHBOARD_TOKEN and exits 1', async () => {
    const run = serve(['--host', '0.0.0.0', '--port', '0']);
    expect(await run.exited).toBe(1);
    expect(run.output().err).toContain('refusing to listen on 0.0.0.0 without a token');
    await run.listening.catch(() => undefined);
  }, 300_000);
});
