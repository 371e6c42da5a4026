import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { END, SqliteRunStore, StateGraph, checkpointingStepRunner } from '../../src/index.js';
import { runCli } from '../support/runCli.js';

describe('switchboard steps', () => {
  it('lists the steps a checkpointing runner recorded for a run, in text and JSON, from the store the CLI opens', async () => {
    const db = join(mkdtempSync(join(tmpdir(), 'sb-steps-')), 'runs.db');
    const store = new SqliteRunStore({ file: db });
    const graph = new StateGraph({ name: 'three' })
      .addNode('one', () => 'first')
      .addNode('two', () => 'second')
      .addNode('three', () => {
        throw new Error('upstream 503');
      })
      .start('one')
      .addEdge('one', 'two')
      .addEdge('two', 'three')
      .addEdge('three', END);
    const run = await graph.run('go', { runId: 'op-1', stepRunner: checkpointingStepRunner(store) });
    expect(run.status).toBe('failed');
    await store.close();
    const env = { SWITCHBOARD_DATABASE_URL: '' };
    const [text, json, none] = await Promise.all([
      runCli(['--db', db, 'steps', 'op-1'], { env }),
      runCli(['--db', db, 'steps', 'op-1', '--json'], { env }),
      runCli(['--db', db, 'steps', 'no-such-run'], { env }),
    ]);
    expect(text.status, text.stderr).toBe(0);
    const lines = text.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^1:one +COMPLETED +attempts 1 +output: \{"outputText":"first"\}$/);
    expect(lines[2]).toMatch(/^3:three +FAILED +attempts 1 +error: .*upstream 503/);
    expect(lines[3]).toBe('2 completed, 1 failed, 0 running');
    const state = JSON.parse(json.stdout) as { steps: Array<{ key: string; status: string }>; counts: object };
    expect(state.steps.map((s) => `${s.key}=${s.status}`)).toEqual(['1:one=COMPLETED', '2:two=COMPLETED', '3:three=FAILED']);
    expect(none.stdout).toContain('has no recorded steps');
  }, 120_000);
});
