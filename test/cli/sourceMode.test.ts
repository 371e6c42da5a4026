import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/runCli.js';

/**
 * The other CLI tests run the build (see test/support/ensureBuild.ts). The command also runs from the
 * TypeScript sources under the "switchboard-source" condition (the npm scripts, a developer without a
 * build): bin/switchboard.js loads src/cli/main.ts through tsx, and a graphs module importing
 * 'switchboard' gets the same sources, so one copy of the engine. Both ways must give the same runs.
 */
const SOURCES = { NODE_OPTIONS: '--conditions=switchboard-source' };
const BUILD = { NODE_OPTIONS: '' };
const dir = mkdtempSync(join(tmpdir(), 'sb-source-mode-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const summary = (stdout: string) => {
  const run = JSON.parse(stdout) as { status: string; path: string[]; outputText: string | null };
  return { status: run.status, path: run.path, outputText: run.outputText };
};

describe('the CLI from the sources and from the build', () => {
  it('runs the customer-service demo to the same answer both ways', async () => {
    const question = 'Check order SO20261001 for me and see how much can still be refunded.';
    const [source, built] = await Promise.all([
      runCli(['--db', join(dir, 'source.db'), 'run', question, '--json'], { env: SOURCES }),
      runCli(['--db', join(dir, 'built.db'), 'run', question, '--json'], { env: BUILD }),
    ]);
    expect(source.stderr).toBe('');
    expect(source.status).toBe(0);
    expect(built.status).toBe(0);
    expect(summary(source.stdout).status).toBe('completed');
    expect(summary(source.stdout)).toEqual(summary(built.stdout));
  });

  it('loads a graphs module that imports the package by name with the engine it runs on', async () => {
    // A second copy of the engine would not know the module's machines ("not compiled by Switchboard").
    const args = ['--graphs', 'test/fixtures/workflowGraphs.ts', 'graphs', '--json'];
    const [source, built] = await Promise.all([runCli(args, { env: SOURCES }), runCli(args, { env: BUILD })]);
    expect(source.stderr).toBe('');
    expect(source.status).toBe(0);
    const names = (stdout: string) => (JSON.parse(stdout) as Array<{ name: string }>).map((g) => g.name);
    expect(names(source.stdout)).toEqual(['review', 'tally', 'echo']);
    expect(names(built.stdout)).toEqual(names(source.stdout));
  });
});
