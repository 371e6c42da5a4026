import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';

/** What `switchboard … --json` prints for a run. */
export type DeskRunJson = { runId: string; status: string; path: string[]; outputText: string | null; waiting?: { nodeId: string; reason: string } };

/**
 * The compiled CLI on the offline model, with a SQLite file of its own (`prefix` names its folder):
 * `cli(...args)` runs it; `run(...args)` adds `--json`, checks the exit code (0 completed, 3 waiting
 * for a reply) and gives the parsed run.
 */
export function offlineDesk(prefix: string): { cli: (...args: string[]) => SpawnSyncReturns<string>; run: (...args: string[]) => DeskRunJson } {
  const db = join(mkdtempSync(join(tmpdir(), prefix)), 'runs.db');
  const env = { ...process.env, SWITCHBOARD_DATABASE_URL: '', OPENAI_API_KEY: '' };
  const cli = (...args: string[]) => spawnSync(process.execPath, ['bin/switchboard.js', '--db', db, ...args], { encoding: 'utf8', env });
  const run = (...args: string[]): DeskRunJson => {
    const result = cli(...args, '--json');
    const parsed = JSON.parse(result.stdout) as DeskRunJson;
    expect(result.status, result.stderr).toBe(parsed.status === 'waiting' ? 3 : 0);
    return parsed;
  };
  return { cli, run };
}
