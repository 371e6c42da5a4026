import { mkdtempSync, readFileSync } from 'node:fs';
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
    // A stored run that recorded no steps.
    expect((await new StateGraph({ name: 'plain' }).addNode('only', () => 'ok').start('only').run('go', { runId: 'plain-1', store })).status).toBe('completed');
    await store.close();
    const env = { SWITCHBOARD_DATABASE_URL: '' };
    const [text, json, none, unknown, unknownJson] = await Promise.all([
      runCli(['--db', db, 'steps', 'op-1'], { env }),
      runCli(['--db', db, 'steps', 'op-1', '--json'], { env }),
      runCli(['--db', db, 'steps', 'plain-1'], { env }),
      runCli(['--db', db, 'steps', 'no-such-run'], { env }),
      runCli(['--db', db, 'steps', 'no-such-run', '--json'], { env }),
    ]);
    expect(text.status, text.stderr).toBe(0);
    const lines = text.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^1:one +COMPLETED +attempts 1 +output: \{"outputText":"first"\}$/);
    expect(lines[2]).toMatch(/^3:three +FAILED +attempts 1 +error: .*upstream 503/);
    expect(lines[3]).toBe('2 completed, 1 failed, 0 running');
    const state = JSON.parse(json.stdout) as { steps: Array<{ key: string; status: string }>; counts: object };
    expect(state.steps.map((s) => `${s.key}=${s.status}`)).toEqual(['1:one=COMPLETED', '2:two=COMPLETED', '3:three=FAILED']);
    expect(none.status, none.stderr).toBe(0);
    expect(none.stdout).toContain('run plain-1 has no recorded steps');
    // A mistyped id is not a run without steps: said so, as show and retry say it.
    expect(unknown.status).toBe(1);
    expect(unknown.stdout).toBe('');
    expect(unknown.stderr).toContain('run not found: no-such-run');
    expect(unknown.stderr).toContain('switchboard runs');
    expect(unknownJson.status).toBe(1);
    expect(JSON.parse(unknownJson.stderr)).toMatchObject({ error: { code: 'run_not_found' } });
  }, 120_000);
});

describe('switchboard retry', () => {
  it('retries a run whose third step failed once: steps one and two are not executed again, and the answer equals an uninterrupted run', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sb-retry-'));
    const db = join(dir, 'runs.db');
    const counted = join(dir, 'count.txt');
    const base = ['--graphs', 'test/fixtures/flakyGraphs.ts', '--db', db];
    const env = { SWITCHBOARD_DATABASE_URL: '', FLAKY_COUNT_FILE: counted };
    const reference = await runCli([...base, 'start', 'flaky', 'order', '--json'], { env: { SWITCHBOARD_DATABASE_URL: '' } });
    expect(reference.status, reference.stderr).toBe(0);
    const uninterrupted = JSON.parse(reference.stdout) as { outputText: string };

    const failed = await runCli([...base, 'start', 'flaky', 'order', '--checkpoint-steps', '--json'], { env: { ...env, FLAKY_OUTAGE: '1' } });
    expect(failed.status).toBe(1);
    const runId = (JSON.parse(failed.stdout) as { runId: string; status: string }).runId;
    expect(readFileSync(counted, 'utf8').trim().split('\n')).toEqual(['one', 'two', 'three']);
    const steps = await runCli([...base, 'steps', runId], { env });
    expect(steps.stdout).toContain('2 completed, 1 failed, 0 running');

    const retried = await runCli([...base, 'retry', runId], { env });
    expect(retried.status, retried.stderr).toBe(0);
    expect(retried.stdout).toContain('reset: 3:three');
    expect(retried.stdout).toContain(`run ${runId}: completed`);
    expect(retried.stdout).toContain(`answer: ${uninterrupted.outputText}`);
    expect(uninterrupted.outputText).toBe('order-1-2-3 (order:fetched)-4');
    expect(readFileSync(counted, 'utf8').trim().split('\n')).toEqual(['one', 'two', 'three', 'three', 'four']);

    const shown = await runCli([...base, 'show', runId, '--json'], { env });
    expect(JSON.parse(shown.stdout)).toMatchObject({ runId, status: 'completed' });
    const again = await runCli([...base, 'retry', runId], { env });
    expect(again.status).toBe(1);
    expect(again.stderr).toContain('only a failed run can be retried');
  }, 180_000);
});
