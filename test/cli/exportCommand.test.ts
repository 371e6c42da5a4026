import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const dir = mkdtempSync(join(tmpdir(), 'sb-export-'));
const cli = (...args: string[]) => spawnSync(process.execPath, ['bin/switchboard.js', ...args], { encoding: 'utf8' });
const fixture = ['--graphs', 'test/fixtures/traceGraphs.ts'];

describe('switchboard export', () => {
  it('prints a registered graph as JSON by default and as Mermaid on request', () => {
    const json = cli('export', 'refund-approval');
    expect(json.status, json.stderr).toBe(0);
    const parsed = JSON.parse(json.stdout) as { graph: string; actors: string[]; machine: { states: Record<string, unknown> } };
    expect(parsed.graph).toBe('refund-approval');
    expect(parsed.actors).toEqual(['draft', 'finish']);
    expect(Object.keys(parsed.machine.states)).toEqual(['draft', 'approve', 'finish', 'completed', 'maxSteps', 'failed', 'cancelled', 'budgetExceeded']);

    const mermaid = cli('export', 'refund-approval', '--format', 'mermaid');
    expect(mermaid.status, mermaid.stderr).toBe(0);
    expect(mermaid.stdout.startsWith('stateDiagram-v2\n')).toBe(true);
    expect(mermaid.stdout).toMatch(/^ {2}n_draft --> n_approve$/m);
    expect(mermaid.stdout).toContain('state "waiting for a reply" as n_approve_waiting');
    expect(mermaid.stdout).not.toMatch(/transition \d/);
  }, 300_000);

  it("keeps the customer-service coordinator (`specialist`) with its specialists and its exit to multi_review", () => {
    const json = cli('export', 'customer-service');
    expect(json.status, json.stderr).toBe(0);
    const parsed = JSON.parse(json.stdout) as { nodes: Array<{ id: string; kind: string; parts?: Array<{ name: string }> }>; edges: Array<{ from: string; to: string; kind: string }> };
    const coordinator = parsed.nodes.find((n) => n.id === 'specialist');
    expect(coordinator?.kind).toBe('coordinator');
    expect(coordinator?.parts?.map((p) => p.name).sort()).toEqual(['human', 'rag', 'report', 'tool']);
    expect(parsed.edges.filter((e) => e.from === 'specialist' && e.kind === 'transition').map((e) => e.to)).toEqual(['multi_review']);

    const mermaid = cli('export', 'customer-service', '--format', 'mermaid');
    expect(mermaid.status, mermaid.stderr).toBe(0);
    expect(mermaid.stdout).toMatch(/^ {2}n_multi_plan --> n_specialist$/m);
    expect(mermaid.stdout).toMatch(/^ {2}n_specialist --> n_multi_review$/m);
    expect(mermaid.stdout).toContain('  state n_specialist {\n');
    // The fuse and the failures are one note each; the JSON export above keeps every hop.
    expect(mermaid.stdout).not.toMatch(/ --> (maxSteps|failed)\b/);
    expect(mermaid.stdout).toContain('  note right of maxSteps : any node once its maxSteps fuse (40) is spent\n');
    expect(parsed.edges.filter((e) => e.kind === 'fuse')).toHaveLength(parsed.nodes.length);
  }, 60_000);

  it('exports any graph of the --graphs module and writes to a file', () => {
    const out = join(dir, 'support.mmd');
    const written = cli(...fixture, 'export', 'support', '--format', 'mermaid', '--out', out);
    expect(written.status, written.stderr).toBe(0);
    expect(written.stderr).toContain(`wrote ${out}`);
    expect(readFileSync(out, 'utf8')).toContain('n_classify --> n_rag : docs | faq');
    const seq = JSON.parse(cli(...fixture, 'export', 'twice').stdout) as { kind: string; maxSteps: null };
    expect(seq).toMatchObject({ kind: 'sequential', maxSteps: null });
  }, 300_000);

  it('explains an unknown graph or format (usage errors: exit 2)', () => {
    const unknown = cli('export', 'nope');
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toContain('no graph named "nope" is registered; known: customer-service, refund-approval [usage]');
    const format = cli('export', 'refund-approval', '--format', 'svg');
    expect(format.status).toBe(2);
    expect(format.stderr).toContain('--format must be json or mermaid; received "svg" [usage]');
    const json = cli('export', 'nope', '--json');
    expect(json.status).toBe(2);
    expect(JSON.parse(json.stderr).error.code).toBe('usage');
  }, 300_000);
});
