import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { scenarioImagePath, scenarios } from '../../machines/scenarios.js';

const db = join(mkdtempSync(join(tmpdir(), 'sb-main-')), 'runs.db');
const env = { ...process.env, SWITCHBOARD_DATABASE_URL: '', OPENAI_API_KEY: '' };
const cli = (...args: string[]) => spawnSync(process.execPath, ['bin/switchboard.js', '--db', db, ...args], { encoding: 'utf8', env });
const json = <T>(result: { stdout: string; stderr: string; status: number | null }, exitCode = 0): T => {
  expect(result.status, result.stderr).toBe(exitCode);
  return JSON.parse(result.stdout) as T;
};
type RunJson = { runId: string; status: string; path: string[]; outputText: string | null; waiting?: { reason: string } };

describe('the main job', () => {
  it('runs a message with a live trace and prints the answer', () => {
    const result = cli('run', 'Check order SO20261001 for me and see how much can still be refunded.');
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/✓ classify\s+\d+ ms {2}route tool/);
    expect(result.stdout).toMatch(/✓ tool_execute\s+\d+ ms {2}lookup_order → ok/);
    expect(result.stdout).toMatch(/✓ tool_execute\s+\d+ ms {2}calculate_refund → ok/);
    expect(result.stdout).toContain('599.00 CNY');
  }, 300_000);

  it('waits at human_handoff across a restart; one resume finishes with the reply, a second is refused', () => {
    // Exit code 3: the run waits for a person.
    const waiting = json<RunJson>(cli('run', 'I completely disagree with this compensation amount—someone needs to resolve this!', '--json'), 3);
    expect(waiting).toMatchObject({ status: 'waiting', path: ['ingest', 'classify', 'human_handoff'] });
    // Every command is a new process: the run lives only in the SQLite file.
    expect(cli('runs', '--status', 'waiting').stdout).toContain(waiting.runId);
    const reply = 'We will refund the difference of 120 CNY today. — Mei';
    const done = json<RunJson>(cli('resume', waiting.runId, '--reply', reply, '--json'));
    expect(done).toMatchObject({ status: 'completed', path: ['ingest', 'classify', 'human_handoff', 'finish'], outputText: reply });
    const again = cli('resume', waiting.runId, '--reply', 'twice');
    expect(again.status).toBe(1);
    expect(again.stderr).toContain('[run_finished]');
  }, 300_000);

  it('takes an image, fault injection and a tool budget', () => {
    const image = scenarioImagePath(scenarios.find((s) => s.id === '2-vision')!)!;
    const vision = json<RunJson>(cli('run', 'What does this mean and how do I fix it?', '--image', image, '--json'));
    expect(vision.path).toEqual(['ingest', 'vision', 'classify', 'retrieve', 'draft', 'review', 'finish']);
    expect(vision.outputText).toContain('E02');
    // No byte of the picture was stored: grep the database files for its base64 and its PNG header.
    const png = readFileSync(image);
    const stored = [db, `${db}-wal`].filter(existsSync).map((f) => readFileSync(f).toString('latin1')).join('');
    expect(stored).toContain(vision.runId);
    expect(stored).not.toContain(png.toString('base64').slice(0, 48));
    expect(stored).not.toContain(png.subarray(0, 16).toString('latin1'));

    const gap = json<RunJson>(cli('run', 'What is the return policy for Aero headphones?', '--fault', 'retrieval_gap', '--json'));
    expect(gap.path.filter((n) => n === 'requery')).toHaveLength(1);
    const budget = json<RunJson>(cli('run', 'Check order SO20261001 for me and see how much can still be refunded.', '--fault', 'tool_timeout', '--tool-budget', '2', '--json'), 3);
    expect(budget).toMatchObject({ status: 'waiting', waiting: { reason: 'tool loop reached budget' } });
    expect(cli('run', 'x', '--tool-budget', 'many').stderr).toContain('--tool-budget: tool budget must be a whole number from 1 to 20');
    expect(cli('run', 'x', '--image', '/no/such.png').stderr).toContain('--image "/no/such.png": no such file');
  }, 300_000);

  it('runs every scenario and prints the summary table', () => {
    const result = cli('scenarios');
    expect(result.status, result.stderr).toBe(0);
    for (const id of ['1-policy', '2-vision', '3-report', '4-order', '5-multi', '6-human', '7-retrieval-gap', '8-tool-timeout', '8b-tool-budget']) {
      expect(result.stdout).toMatch(new RegExp(`^${id}\\s+(completed|waiting)`, 'm'));
    }
    expect(result.stdout).toMatch(/^6-human\s+waiting → completed/m);
    expect(result.stdout).toMatch(/^8b-tool-budget\s+waiting\s/m);
    expect(result.stdout).toContain('root/rag[1]'.replace('root/', ''));
  }, 300_000);
});
