import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteRunStore } from '../../src/index.js';
import { graphs } from '../fixtures/analyticsGraphs.js';
import { loopingSpecialist } from '../support/loopingSpecialist.js';
import { runCli } from '../support/runCli.js';

const dir = mkdtempSync(join(tmpdir(), 'sb-analyze-'));
const db = join(dir, 'runs.db');
const base = ['--graphs', 'test/fixtures/analyticsGraphs.ts', '--db', db];

beforeAll(async () => {
  // Four stored desk runs: b, b, t→b, o (fails), and one echo run. By hand, from classify: billing 3/5,
  // tech 1/5, other 1/5; tech always goes back; completed p = 0.6 + 0.2p = 0.75, failed 0.25;
  // classify is visited 1.25 times a run and each visit runs one more node: 2.5 steps a run.
  const store = new SqliteRunStore({ file: db });
  const [desk, echo] = graphs;
  for (const input of ['b', 'b', 't,b', 'o']) await desk!.run(input, { store });
  await echo!.run('hi', { store });
  await store.close();
}, 60_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('switchboard analyze', () => {
  it('prints the chain of a stored graph as JSON with the values computed by hand', async () => {
    const result = await runCli([...base, 'analyze', '--graph', 'desk', '--json']);
    expect(result.status, result.stderr).toBe(0);
    const out = JSON.parse(result.stdout) as Record<string, { runs: number; states: string[]; matrix: number[][]; endProbabilities: Record<string, number>; expectedSteps: number; cycles: { states: string[] }[] }>;
    expect(Object.keys(out)).toEqual(['desk']);
    const a = out.desk!;
    expect(a.runs).toBe(4);
    const p = (from: string, to: string) => a.matrix[a.states.indexOf(from)]![a.states.indexOf(to)];
    expect(p('classify', 'billing')).toBeCloseTo(0.6, 12);
    expect(p('classify', 'tech')).toBeCloseTo(0.2, 12);
    expect(p('tech', 'classify')).toBe(1);
    expect(p('other', '__end__:failed')).toBe(1);
    expect(a.endProbabilities.completed).toBeCloseTo(0.75, 12);
    expect(a.endProbabilities.failed).toBeCloseTo(0.25, 12);
    expect(a.expectedSteps).toBeCloseTo(2.5, 12);
    expect(a.cycles[0]!.states).toEqual(['classify', 'tech']);
  }, 120_000);

  it('prints text for every stored workflow, Mermaid for one, and nothing for a window with no runs', async () => {
    const [text, mermaid, future, past] = await Promise.all([
      runCli([...base, 'analyze']),
      runCli([...base, 'analyze', '--graph', 'desk', '--format', 'mermaid']),
      runCli([...base, 'analyze', '--since', '2999-01-01', '--json']),
      runCli([...base, 'analyze', '--since', '1d', '--graph', 'echo']),
    ]);
    expect(text.status, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/^desk: 4 runs, 14 transitions$/m);
    expect(text.stdout).toContain('ends: completed 75.0 %, failed 25.0 %');
    expect(text.stdout).toContain('expected steps from start to end: 2.50');
    expect(text.stdout).toContain('classify → tech → classify  1 times in 1 runs');
    expect(text.stdout).toMatch(/^echo: 1 runs, 2 transitions$/m);
    expect(mermaid.status, mermaid.stderr).toBe(0);
    expect(mermaid.stdout).toContain('stateDiagram-v2');
    expect(mermaid.stdout).toContain('n_classify --> n_billing : 0.60 (3)');
    expect(mermaid.stdout).toContain('n_other --> end_failed : 1.00 (1)');
    expect(future.status, future.stderr).toBe(0);
    expect(JSON.parse(future.stdout)).toEqual({});
    expect(past.status, past.stderr).toBe(0);
    expect(past.stdout).toMatch(/^echo: 1 runs/);
  }, 120_000);

  it('refuses bad options with a usage error (exit 2)', async () => {
    const results = await Promise.all([
      runCli([...base, 'analyze', '--format', 'png']),
      runCli([...base, 'analyze', '--since', 'yesterday']),
      runCli([...base, 'analyze', '--graph', 'nope']),
      runCli([...base, 'analyze', '--json', '--format', 'mermaid']),
      runCli([...base, 'analyze', '--format', 'mermaid']),
      runCli([...base, 'analyze', '--json', '--since', '2026-13-45']),
      // Days the month does not have: Date.parse rolls them over into the next month.
      runCli([...base, 'analyze', '--since', '2026-02-31']),
      runCli([...base, 'analyze', '--since', '2026-04-31T08:00:00Z']),
    ]);
    for (const r of results) expect(r.status, r.stdout + r.stderr).toBe(2);
    expect(results[0]!.stderr).toContain('--format must be text, json, mermaid; received "png"');
    expect(results[1]!.stderr).toContain('--since must be an ISO date');
    expect(results[2]!.stderr).toContain('no graph named "nope"');
    expect(results[3]!.stderr).toContain('--json and --format mermaid');
    expect(results[4]!.stderr).toContain('--format mermaid draws one workflow');
    expect(JSON.parse(results[5]!.stderr)).toMatchObject({ error: { code: 'usage' } });
    expect(results[6]!.stderr).toContain('--since: 2026-02 has no day 31');
    expect(results[7]!.stderr).toContain('--since: 2026-04 has no day 31');
  }, 120_000);

  it('prints what it can analyse while a specialist is still going round a loop, and says which it cannot (exit 1)', async () => {
    const looping = join(dir, 'looping.db');
    const store = new SqliteRunStore({ file: looping });
    const { desk, inLoop, release } = loopingSpecialist();
    const running = desk.run('go', { store, runId: 'd-1' });
    await inLoop(store, 'd-1');
    const args = ['--graphs', 'test/fixtures/analyticsGraphs.ts', '--db', looping, 'analyze'];
    const [text, json] = await Promise.all([runCli(args), runCli([...args, '--json'])]);
    release();
    expect((await running).status).toBe('completed');
    await store.close();
    expect(text.status).toBe(1);
    expect(text.stdout).toMatch(/^desk: 1 runs, 2 transitions$/m);
    expect(text.stderr).toContain('tool: no run ever left');
    expect(text.stderr).toContain('"d-1/tool[1]"');
    expect(json.status).toBe(1);
    expect(Object.keys(JSON.parse(json.stdout) as object)).toEqual(['desk']);
    expect(JSON.parse(json.stderr)).toMatchObject({ error: { code: 'chain_not_absorbing', message: expect.stringContaining('tool: no run ever left') } });
  }, 120_000);

  it('analyses a specialist by the name it prints for it, though no run of that graph was started on its own', async () => {
    const file = join(dir, 'specialist.db');
    const store = new SqliteRunStore({ file });
    const { desk, release } = loopingSpecialist();
    const running = desk.run('go', { store, runId: 'd-2' });
    await new Promise((resolve) => setImmediate(resolve));
    release();
    expect((await running).status).toBe('completed');
    await store.close();
    const args = ['--graphs', 'test/fixtures/analyticsGraphs.ts', '--db', file, 'analyze'];
    const [all, json, mermaid, hint] = await Promise.all([
      runCli(args),
      runCli([...args, '--graph', 'tool', '--json']),
      runCli([...args, '--graph', 'tool', '--format', 'mermaid']),
      runCli([...args, '--format', 'mermaid']),
    ]);
    expect(all.stdout).toMatch(/^tool: 1 runs, 5 transitions$/m);
    // The hint names it, and following the hint works.
    expect(hint.stderr).toContain('pass --graph <name> (stored: desk, tool)');
    expect(json.status, json.stderr).toBe(0);
    const out = JSON.parse(json.stdout) as Record<string, { runs: number; transitions: number; endProbabilities: Record<string, number> }>;
    expect(Object.keys(out)).toEqual(['tool']);
    expect(out.tool).toMatchObject({ runs: 1, transitions: 5, endProbabilities: { completed: 1 } });
    expect(mermaid.status, mermaid.stderr).toBe(0);
    expect(mermaid.stdout).toContain('n_act --> n_plan : 0.50 (1)');
  }, 120_000);

  it('is listed in the help', async () => {
    const help = await runCli(['--help']);
    expect(help.stdout).toMatch(/^ {2}analyze .*analyse the step transitions of stored runs/m);
  }, 60_000);
});
