import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const db = join(mkdtempSync(join(tmpdir(), 'sb-two-')), 'runs.db');
const env = { ...process.env, SWITCHBOARD_DATABASE_URL: '', OPENAI_API_KEY: '' };
const run = (message: string) => {
  const result = spawnSync(process.execPath, ['bin/switchboard.js', '--db', db, 'run', message, '--json'], { encoding: 'utf8', env });
  expect(result.status, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as { status: string; path: string[]; outputText: string };
};

describe('two questions in one message (CLI, offline)', () => {
  it('answers both questions however they are joined ("and", "also", a second sentence, a question mark)', () => {
    for (const [message, facts] of [
      ['is SO20261005 delivered and how do I get an invoice', ['delivered 1 day ago', '[KB007]']],
      ['Refund SO20261004, also how long is shipping', ['0.00 CNY', '[KB004]']],
      ['Is SO20261001 here yet? Do the headphones have a warranty', ['delivered 3 days ago', '[KB003]']],
      ['SO20261003 status and the Sept 2026 sales', ['in transit', '1,286,000']],
    ] as const) {
      const r = run(message);
      expect(r.path, message).toContain('multi_plan');
      for (const fact of facts) expect(r.outputText, message).toContain(fact);
    }
  }, 300_000);

  it('keeps a clause of context beside one request a single request', () => {
    const r = run('Please cancel SO20261003, my sister already bought me one.');
    expect(r.path.slice(0, 3)).toEqual(['ingest', 'classify', 'tool_plan']);
    expect(r.path).not.toContain('multi_plan');
    expect(r.outputText).toContain('349.00 CNY');
    expect(r.outputText).not.toContain('[KB');
  }, 120_000);
});
