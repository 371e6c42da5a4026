import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { colourEnabled, colourLine } from '../../src/cli/colour.js';
import { runCli } from '../support/runCli.js';

const ESC = '\x1b[';
const db = join(mkdtempSync(join(tmpdir(), 'sb-colour-')), 'runs.db');
const BIN = new URL('../../bin/switchboard.js', import.meta.url).pathname;

/** The environment of a user's shell: no colour variables unless given. */
function shellEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && k !== 'FORCE_COLOR' && k !== 'NO_COLOR') env[k] = v;
  return { ...env, SWITCHBOARD_DATABASE_URL: '', OPENAI_API_KEY: '', TERM: 'xterm-256color', ...extra };
}

/** Runs the CLI on a pseudo-terminal (util-linux `script`), as a person at a terminal would. */
function onTerminal(args: string[], extra: Record<string, string> = {}): string {
  const command = [process.execPath, BIN, '--db', db, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  const result = spawnSync('script', ['-qec', command, '/dev/null'], { env: shellEnv(extra), encoding: 'utf8' });
  return result.stdout;
}

describe('colour', () => {
  it('is on for a terminal, off under NO_COLOR, forced by FORCE_COLOR, off when piped or FORCE_COLOR=0', () => {
    const tty = { isTTY: true };
    const pipe = {};
    expect(colourEnabled(tty, {})).toBe(true);
    expect(colourEnabled(tty, { TERM: 'dumb' })).toBe(false);
    expect(colourEnabled(pipe, {})).toBe(false);
    expect(colourEnabled(tty, { NO_COLOR: '1' })).toBe(false);
    // An empty NO_COLOR does not count (no-color.org).
    expect(colourEnabled(tty, { NO_COLOR: '' })).toBe(true);
    expect(colourEnabled(pipe, { FORCE_COLOR: '1' })).toBe(true);
    expect(colourEnabled(pipe, { FORCE_COLOR: '' })).toBe(true);
    expect(colourEnabled(tty, { FORCE_COLOR: '0' })).toBe(false);
    expect(colourEnabled(tty, { FORCE_COLOR: 'false' })).toBe(false);
    // NO_COLOR wins over FORCE_COLOR: the person asked for none.
    expect(colourEnabled(pipe, { FORCE_COLOR: '1', NO_COLOR: '1' })).toBe(false);
  });

  it('colours only the CLI\'s own marks: trace glyphs, run statuses, error prefixes', () => {
    expect(colourLine('  ✓ classify        12 ms  route tool')).toBe(`  ${ESC}32m✓${ESC}0m classify        12 ms  route tool`);
    expect(colourLine('  root/tool[2] │   ✗ tool_execute boom')).toBe(`  root/tool[2] │   ${ESC}31m✗${ESC}0m tool_execute boom`);
    expect(colourLine('run 42: waiting')).toBe(`run 42: ${ESC}33mwaiting${ESC}0m`);
    expect(colourLine('run 42: completed   path: a → b')).toBe(`run 42: ${ESC}32mcompleted${ESC}0m   path: a → b`);
    expect(colourLine('switchboard: run not found: x [run_not_found]')).toBe(`${ESC}31mswitchboard:${ESC}0m run not found: x [run_not_found]`);
    // A user's words in the middle of a line stay as they are.
    expect(colourLine('answer: run 42: completed ✓')).toBe('answer: run 42: completed ✓');
  });

  it('the CLI colours on a pseudo-terminal and not under NO_COLOR, when piped, or under --json', async () => {
    const coloured = onTerminal(['start', 'refund-approval', 'Refund SO20261001 please']);
    expect(coloured).toMatch(/run \S+: \x1b\[33mwaiting\x1b\[0m/);
    const noColour = onTerminal(['start', 'refund-approval', 'Refund SO20261001 please'], { NO_COLOR: '1' });
    expect(noColour).toMatch(/run \S+: waiting/);
    expect(noColour).not.toContain(ESC);
    const json = onTerminal(['start', 'refund-approval', 'Refund SO20261001 please', '--json']);
    expect(json).toContain('"status":"waiting"');
    expect(json).not.toContain(ESC);

    const [piped, forced, forcedOff, error] = await Promise.all([
      runCli(['--db', db, 'start', 'refund-approval', 'Refund SO20261001 please']),
      runCli(['--db', db, 'start', 'refund-approval', 'Refund SO20261001 please'], { env: { FORCE_COLOR: '1' } }),
      runCli(['--db', db, 'start', 'refund-approval', 'Refund SO20261001 please'], { env: { FORCE_COLOR: '0' } }),
      runCli(['--db', db, 'show', 'no-such-run'], { env: { FORCE_COLOR: '1' } }),
    ]);
    expect(piped.stdout).toMatch(/run \S+: waiting/);
    expect(piped.stdout).not.toContain(ESC);
    expect(forced.stdout).toMatch(/run \S+: \x1b\[33mwaiting\x1b\[0m/);
    expect(forcedOff.stdout).not.toContain(ESC);
    expect(error.stderr).toBe(`${ESC}31mswitchboard:${ESC}0m run not found: no-such-run [run_not_found]\n`);
  });

  it('never lets a message pick its colours: escape sequences in it are printed escaped', async () => {
    const started = await runCli(['--db', db, 'start', 'refund-approval', 'Refund SO20261001 please', '--json']);
    const { runId } = JSON.parse(started.stdout) as { runId: string };
    // The answer repeats the reply: its escape sequence is shown as text, and only the status is coloured.
    const resumed = await runCli(['--db', db, 'resume', runId, '--reply', 'approved \x1b[31m\x1b[2Jall gone'], { env: { FORCE_COLOR: '1' } });
    expect(resumed.stdout).toContain('answer: Refund for SO20261001: approved \\x1b[31m\\x1b[2Jall gone');
    expect(resumed.stdout.match(/\x1b\[/g)).toEqual([ESC, ESC]);
    expect(resumed.stdout).toContain(`run ${runId}: ${ESC}32mcompleted${ESC}0m`);
  });
});
