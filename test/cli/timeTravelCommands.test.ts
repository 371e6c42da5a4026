import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ErrorJson, RunJson, RunStateJson } from '../../src/index.js';
import { runCli } from '../support/runCli.js';

const GRAPHS = ['--graphs', 'test/fixtures/timeTravelGraphs.ts'];

describe('switchboard state', () => {
  it('prints the full state after a step in text and versioned JSON, and refuses a step beyond the end typed', async () => {
    const db = join(mkdtempSync(join(tmpdir(), 'sb-state-')), 'runs.db');
    const base = [...GRAPHS, '--db', db];
    const started = await runCli([...base, 'start', 'tally', 'three', '--json']);
    expect(started.status, started.stderr).toBe(0);
    const { runId } = JSON.parse(started.stdout) as { runId: string };
    const [text, json, last, beyond, bad] = await Promise.all([
      runCli([...base, 'state', runId, '--at', '1']),
      runCli([...base, 'state', runId, '--at', '2', '--json']),
      runCli([...base, 'state', runId, '--json']),
      runCli([...base, 'state', runId, '--at', '9', '--json']),
      runCli([...base, 'state', runId, '--at', '-1']),
    ]);
    expect(text.status, text.stderr).toBe(0);
    expect(text.stdout).toContain('step 1 of 3: after count, next double');
    expect(text.stdout).toContain('  n = 1');
    expect(text.stdout).toContain('next request: {"input":"counted three"}');
    const at2 = RunStateJson.parse(JSON.parse(json.stdout));
    expect(at2).toMatchObject({ schemaVersion: 1, runId, step: 2, lastStep: 3, nodeId: 'double', nextNodeId: 'small', state: { n: 2 }, parentRunId: null, forkedAt: null });
    expect(RunStateJson.parse(JSON.parse(last.stdout))).toMatchObject({ step: 3, nodeId: 'small', state: { label: 'small' } });
    expect(beyond.status).toBe(1);
    const error = ErrorJson.parse(JSON.parse(beyond.stderr || beyond.stdout));
    expect(error.error).toMatchObject({ code: 'step_out_of_range' });
    expect(error.error.message).toContain('steps 0 to 3');
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('--at');
  });
});

describe('switchboard fork', () => {
  it('forks a stored run at a step, with an edited state, shows the parent link, and refuses bad state typed', async () => {
    const db = join(mkdtempSync(join(tmpdir(), 'sb-fork-')), 'runs.db');
    const base = [...GRAPHS, '--db', db];
    const started = await runCli([...base, 'start', 'tally', 'x', '--json']);
    const { runId } = JSON.parse(started.stdout) as { runId: string };
    const [same, edited, wrongType, notJson] = await Promise.all([
      runCli([...base, 'fork', runId, '--at', '1', '--json']),
      runCli([...base, 'fork', runId, '--at', '2', '--state', '{"n":40,"seen":["count"]}']),
      runCli([...base, 'fork', runId, '--at', '2', '--state', '{"n":"forty"}', '--json']),
      runCli([...base, 'fork', runId, '--at', '2', '--state', '{n:40}']),
    ]);
    expect(same.status, same.stderr).toBe(0);
    const fork = RunJson.parse(JSON.parse(same.stdout));
    expect(fork).toMatchObject({ status: 'completed', outputText: 'small 2 after counted x', parentRunId: runId, forkedAt: 1 });
    expect(edited.status, edited.stderr).toBe(0);
    expect(edited.stdout).toContain(`forked ${runId} at step 2 with an edited state`);
    expect(edited.stdout).toContain('answer: big 40 after counted x');
    expect(wrongType.status).toBe(1);
    expect(ErrorJson.parse(JSON.parse(wrongType.stderr || wrongType.stdout)).error.code).toBe('state_invalid');
    expect(notJson.status).toBe(2);
    expect(notJson.stderr).toContain('--state is not JSON');

    const shown = await runCli([...base, 'show', fork.runId]);
    expect(shown.stdout).toContain(`forked from ${runId} at step 1`);
    const shownJson = await runCli([...base, 'show', fork.runId, '--json']);
    expect(JSON.parse(shownJson.stdout)).toMatchObject({ parentRunId: runId, forkedAt: 1 });
  });
});

describe('switchboard start --break-before / --break-after', () => {
  it('pauses at the breakpoints (exit 3, how to go on), goes on with a resume without a reply, and refuses a node that does not exist', async () => {
    const db = join(mkdtempSync(join(tmpdir(), 'sb-break-')), 'runs.db');
    const base = [...GRAPHS, '--db', db];
    const [paused, unknown] = await Promise.all([
      runCli([...base, 'start', 'tally', 'x', '--break-before', 'double', '--break-after', 'double']),
      runCli([...base, 'start', 'tally', 'x', '--break-before', 'dubble', '--json']),
    ]);
    expect(paused.status, paused.stderr).toBe(3);
    expect(paused.stdout).toContain('waiting at double: breakpoint before double');
    const runId = /run (\S+): waiting/.exec(paused.stdout)![1]!;
    expect(paused.stdout).toContain(`to go on: switchboard resume ${runId}`);
    expect(ErrorJson.parse(JSON.parse(unknown.stderr || unknown.stdout)).error.code).toBe('invalid_breakpoint');
    const after = await runCli([...base, 'resume', runId, '--json']);
    expect(after.status, after.stderr).toBe(3);
    expect(RunJson.parse(JSON.parse(after.stdout)).waiting).toMatchObject({ nodeId: 'small', reason: 'breakpoint after double (next: small)' });
    const done = await runCli([...base, 'resume', runId, '--json']);
    expect(done.status, done.stderr).toBe(0);
    expect(RunJson.parse(JSON.parse(done.stdout))).toMatchObject({ status: 'completed', outputText: 'small 2 after counted x' });
  });
});
