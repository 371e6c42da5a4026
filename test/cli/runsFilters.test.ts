import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorJson, RunSummaryJson } from '../../src/index.js';
import { postgresTarget, sqliteTarget, type StoreTarget } from '../persistence/storeTargets.js';
import { runCli, type CliResult } from '../support/runCli.js';

/** Stored runs whose inputs hold what a LIKE pattern or an SQL string would read as syntax. */
const RUNS = [
  { id: 'run-percent', graph: 'customer-service', input: 'Am I 100% covered?', status: 'completed' },
  { id: 'run-underscore', graph: 'customer-service', input: 'order_id SO1', status: 'failed' },
  { id: 'run-injection', graph: 'refund-approval', input: "x'); DROP TABLE runs; --", status: 'completed' },
  { id: 'run-unicode', graph: 'refund-approval', input: 'Rückgabe für Café 東京 😀', status: 'waiting' },
] as const;

const listedIds = (result: CliResult) => {
  expect(result.status, result.stderr).toBe(0);
  return (JSON.parse(result.stdout) as unknown[]).map((r) => RunSummaryJson.parse(r).runId).sort();
};

describe.each([
  ['SQLite', sqliteTarget],
  ['PostgreSQL', postgresTarget],
])('switchboard runs --status --graph --search on %s', (_name, make) => {
  let target: StoreTarget;
  const cli = (...args: string[]) => runCli(['runs', ...args], { env: target.env });

  beforeAll(async () => {
    target = make();
    for (const run of RUNS) {
      const snapshot = { context: { request: { input: run.input }, state: {}, path: [], steps: 0 } };
      const record = await target.store.insertRun({ runId: run.id, graphName: run.graph, graphHash: 'h', status: 'running', owner: null, leaseExpiresAt: null, snapshot });
      await target.store.updateRun(run.id, record.version, { status: run.status });
    }
  });
  afterAll(() => target.close());

  it('filters by text literally, by status and by graph, and prints the table or JSON', async () => {
    const [percent, injection, underscoreFailed, graph, unicode, none, table] = await Promise.all([
      cli('--search', '%', '--json'),
      cli('--search', "'); DROP TABLE runs; --", '--json'),
      cli('--search', '_', '--status', 'failed', '--json'),
      cli('--graph', 'refund-approval', '--json'),
      cli('--search', 'café 東京', '--status', 'waiting', '--graph', 'refund-approval', '--json'),
      cli('--search', '%_%'),
      cli('--search', 'SO1'),
    ]);
    expect(listedIds(percent)).toEqual(['run-percent']);
    expect(listedIds(injection)).toEqual(['run-injection']);
    expect(listedIds(underscoreFailed)).toEqual(['run-underscore']);
    expect(listedIds(graph)).toEqual(['run-injection', 'run-unicode']);
    expect(listedIds(unicode)).toEqual(['run-unicode']);
    expect(none.stdout.trim()).toBe('no stored runs match');
    expect(table.stdout).toContain('run-underscore');
    expect(table.stdout).not.toContain('run-percent');
    // Nothing was dropped.
    expect(await target.store.listRuns()).toHaveLength(RUNS.length);
  }, 120_000);

  it('refuses a blank or control-character search and an empty graph with invalid_input (exit 2)', async () => {
    const results = await Promise.all([cli('--search', '  ', '--json'), cli('--search', 'a\tb', '--json'), cli('--graph', '', '--json')]);
    for (const result of results) {
      expect(result.status, result.stderr).toBe(2);
      expect(result.stdout).toBe('');
      expect(ErrorJson.parse(JSON.parse(result.stderr.trim())).error.code).toBe('invalid_input');
    }
    expect(results.map((r) => JSON.parse(r.stderr.trim()).error.message as string)).toEqual([
      expect.stringContaining('--search: search must not be blank'),
      expect.stringContaining('--search: search must not contain control characters'),
      expect.stringContaining('--graph must name a graph'),
    ]);
  }, 120_000);
});
