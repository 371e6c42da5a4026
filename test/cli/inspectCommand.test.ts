import { spawn, spawnSync, type ChildProcessByStdio } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';

const dir = mkdtempSync(join(tmpdir(), 'sb-inspect-cli-'));
const FAKE_KEY = 'sk-fake-inspect-0123456789abcdefghij';
// The key sits in the environment the way a real one would (not OPENAI_API_KEY, which would take the graph online).
const env = { ...process.env, SWITCHBOARD_DATABASE_URL: '', OPENAI_API_KEY: '', SUPPORT_API_KEY: FAKE_KEY };
const children: Array<ChildProcessByStdio<null, Readable, Readable>> = [];

afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});

/** A port that was free a moment ago, on loopback. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * Resolves with the child's stdout once it matches `pattern`; rejects if the child exits without
 * printing it. No timer: on a busy machine a start can take long, and the test's own timeout ends a hang.
 */
function output(child: ChildProcessByStdio<null, Readable, Readable>, pattern: RegExp): Promise<string> {
  let text = '';
  let errors = '';
  child.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString()));
  return new Promise((resolve, reject) => {
    if (child.exitCode !== null || child.signalCode !== null) return reject(new Error(`the process had already exited before printing ${pattern}`));
    child.stdout.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      if (pattern.test(text)) resolve(text);
    });
    child.once('close', (code, signal) => reject(new Error(`exited (${code ?? signal}) without printing ${pattern}: ${text} / ${errors}`)));
  });
}

interface Message {
  type: string;
  name?: string;
  event?: { type: string };
  snapshot?: { status?: string; value?: unknown };
}

describe('switchboard inspect', () => {
  it('serves the Stately inspector on 127.0.0.1 and a WebSocket viewer sees actor, event and snapshot messages of the run', async () => {
    const port = await freePort();
    // The customer-service machine (the default graph), on scenario 4: lookup, then refund.
    const message = `Check order SO20261001 for me and see how much can still be refunded. (debug key ${FAKE_KEY})`;
    const args = ['bin/switchboard.js', '--db', join(dir, 'runs.db'), 'inspect', message, '--port', String(port)];
    const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    const started = await output(child, /Waiting for the viewer/);
    expect(started).toContain(`open http://127.0.0.1:${port}`);
    expect(started).toContain('needs internet');

    const page = await fetch(`http://127.0.0.1:${port}/`);
    expect(await page.text()).toContain('<iframe id="inspector" src="https://stately.ai/inspect">');

    const messages: Message[] = [];
    const raw: string[] = [];
    const viewer = new WebSocket(`ws://127.0.0.1:${port}`);
    const finished = output(child, /completed/);
    let sawDone!: () => void;
    // The inspector sends on its own timers: wait for the machine's own final snapshot (its node
    // actors finish too, earlier), not for a while.
    const doneSnapshot = new Promise<void>((resolve) => (sawDone = resolve));
    viewer.on('message', (data: Buffer) => {
      raw.push(data.toString());
      const message = JSON.parse(data.toString()) as Message;
      messages.push(message);
      if (message.type === '@xstate.snapshot' && message.snapshot?.status === 'done' && message.snapshot.value === 'completed') sawDone();
    });
    await finished;
    await doneSnapshot;
    viewer.close();

    const types = new Set(messages.map((m) => m.type));
    expect([...types].sort()).toEqual(['@xstate.actor', '@xstate.event', '@xstate.snapshot']);
    const actors = messages.filter((m) => m.type === '@xstate.actor').map((m) => m.name);
    expect(actors).toEqual(expect.arrayContaining(['customer-service', 'classify', 'tool_plan', 'tool_execute', 'finish']));
    const events = messages.filter((m) => m.type === '@xstate.event').map((m) => m.event?.type);
    expect(events).toEqual(expect.arrayContaining(['xstate.init', 'xstate.done.actor.classify', 'xstate.done.actor.tool_execute', 'xstate.done.actor.finish']));
    expect(events.filter((e) => e === 'xstate.done.actor.tool_execute')).toHaveLength(2);
    const values = messages.filter((m) => m.type === '@xstate.snapshot').map((m) => m.snapshot?.value);
    expect(values).toEqual(expect.arrayContaining(['tool_execute', 'completed']));
    expect(raw.join('\n')).not.toContain(FAKE_KEY);

    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    child.kill('SIGINT');
    expect(await exited).toBe(0);
  }, 300_000);

  it('says so when the port is taken', async () => {
    const port = await freePort();
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(port, '127.0.0.1', resolve));
    try {
      const result = spawnSync(process.execPath, ['bin/switchboard.js', '--db', join(dir, 'runs.db'), 'inspect', 'x', '--port', String(port), '--no-wait', '--exit'], {
        encoding: 'utf8',
        env,
      });
      expect(result.status).toBe(1);
      expect(result.stderr).toContain(`cannot start the inspector server on 127.0.0.1:${port} (EADDRINUSE); pass a free port with --port [inspector_unavailable]`);
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
    }
  }, 300_000);

  it('runs at once with --no-wait, stops with --exit, and checks the port', async () => {
    const port = await freePort();
    const run = (...extra: string[]) =>
      spawnSync(process.execPath, ['bin/switchboard.js', '--db', join(dir, 'runs.db'), '--graphs', 'test/fixtures/traceGraphs.ts', 'inspect', 'how do I reset?', '--graph', 'support', ...extra], {
        encoding: 'utf8',
        env,
      });
    const done = run('--port', String(port), '--no-wait', '--exit');
    expect(done.status, done.stderr).toBe(0);
    expect(done.stdout).toContain(`Stately inspector for graph "support": open http://127.0.0.1:${port}`);
    expect(done.stdout).toMatch(/run \S+: completed\npath: classify → rag → review/);
    expect(done.stdout).not.toContain('Waiting for the viewer');
    expect(run('--port', '0').stderr).toContain('--port must be an integer from 1 to 65535; received "0"');
  }, 300_000);
});
