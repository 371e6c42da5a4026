import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/runCli.js';

const fixture = ['--graphs', 'test/fixtures/workflowGraphs.ts'];
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const db = () => ['--db', join(mkdtempSync(join(tmpdir(), 'sb-cli-wf-')), 'runs.db')];

describe('typed workflows in the CLI', () => {
  it('lists workflows beside graphs, and exports one as JSON (with its WorkflowGraph) and Mermaid (its fork as regions)', async () => {
    const [listed, json, mermaid] = await Promise.all([
      runCli([...fixture, 'graphs', '--json']),
      runCli([...fixture, 'export', 'review']),
      runCli([...fixture, 'export', 'review', '--format', 'mermaid']),
    ]);
    expect(listed.status, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout)).toEqual([
      { name: 'review', kind: 'workflow', default: true, start: 'draft', nodes: 7, humanNodes: ['approval:person'], coordinators: [] },
      { name: 'tally', kind: 'workflow', default: false, start: 'split', nodes: 3, humanNodes: [], coordinators: [] },
      { name: 'echo', kind: 'graph', default: false, start: 'echo', nodes: 1, humanNodes: [], coordinators: [] },
    ]);

    expect(json.status, json.stderr).toBe(0);
    const exported = JSON.parse(json.stdout) as {
      kind: string;
      nodes: Array<{ id: string; kind: string; parts?: Array<{ name: string }> }>;
      edges: Array<{ from: string; to: string; kind: string; keys?: string[] }>;
      workflow: { name: string; nodes: Array<{ id: string; type: string }>; edges: Array<{ from: string; to: string; condition: string; label?: string }>; startNode: string };
    };
    expect(exported.kind).toBe('workflow');
    const fork = exported.nodes.find((n) => n.id === 'fork')!;
    expect(fork.kind).toBe('fork');
    expect(fork.parts?.map((p) => p.name)).toEqual(['spell', 'facts']);
    expect(exported.edges.find((e) => e.from === 'approval:person' && e.keys?.includes('PASS'))?.to).toBe('publish');
    expect(exported.workflow.name).toBe('review');
    expect(exported.workflow.startNode).toBe('draft');
    expect(exported.workflow.nodes.map((n) => n.type)).toEqual(expect.arrayContaining(['fork', 'join', 'gate', 'step']));
    expect(exported.workflow.edges).toContainEqual({ from: 'approval:person', to: 'revise', condition: 'gate', label: 'FAIL' });

    expect(mermaid.status, mermaid.stderr).toBe(0);
    expect(mermaid.stdout).toContain('  state n_fork {\n');
    expect(mermaid.stdout).toMatch(/state "spell" as n_fork_spell[\s\S]*--[\s\S]*state "facts" as n_fork_facts/);
    expect(mermaid.stdout).toContain('n_approval_person_waiting --> n_approval_person_routing : human.reply');
    expect(mermaid.stdout).toMatch(/^ {2}n_approval_person --> n_publish : PASS$/m);
    expect(mermaid.stdout).toMatch(/^ {2}n_approval_person --> n_revise : FAIL$/m);
    // Every step's early-end route is one note in the drawing, and each is kept in the JSON export.
    expect(mermaid.stdout.match(/workflow#58;end/g)).toEqual(['workflow#58;end']);
    expect(mermaid.stdout).toContain('  note left of completed : any step on workflow#58;end (abort, terminate, spent loop fuse)\n');
    const ends = exported.edges.filter((e) => e.keys?.includes('workflow:end')).map((e) => `${e.from}>${e.to}`);
    expect(ends).toEqual(expect.arrayContaining(['draft>completed', 'fork>completed', 'publish>completed', 'revise>completed']));
  }, 300_000);

  it('starts a workflow that waits at a HumanGate, resumes it with FAIL (it revises and asks again) and then PASS, in separate processes', async () => {
    const store = db();
    const started = await runCli([...fixture, ...store, 'start', 'review', 'the plan', '--json']);
    expect(started.status, started.stderr).toBe(3);
    const waiting = JSON.parse(started.stdout) as { runId: string; status: string; waiting: { nodeId: string; reason: string }; outputText: string };
    expect(waiting.status).toBe('waiting');
    expect(waiting.waiting.nodeId).toBe('approval:person');
    expect(waiting.waiting.reason).toContain('reply PASS or FAIL');
    // A stored workflow run names its steps wherever its path is shown (no engine ids: fork, join, approval, approval:person, finish).
    const [shownWaiting, listedWaiting] = await Promise.all([runCli([...fixture, ...store, 'show', waiting.runId]), runCli([...fixture, ...store, 'runs'])]);
    expect(shownWaiting.status, shownWaiting.stderr).toBe(0);
    expect(shownWaiting.stdout).toContain('\npath: draft → spell → facts\n');
    expect(listedWaiting.stdout).toMatch(new RegExp(`${waiting.runId}\\s+review\\s+waiting\\s+3\\s`));

    const failed = await runCli([...fixture, ...store, 'resume', waiting.runId, '--reply', 'FAIL: name the owner', '--json']);
    expect(failed.status, failed.stderr).toBe(3);
    expect(JSON.parse(failed.stdout)).toMatchObject({ status: 'waiting', outputText: 'draft of the plan (revised: name the owner)' });

    const passed = await runCli([...fixture, ...store, 'resume', waiting.runId, '--reply-json', '{"decision":"PASS","text":"ok"}', '--json']);
    expect(passed.status, passed.stderr).toBe(0);
    expect(JSON.parse(passed.stdout)).toMatchObject({ status: 'completed', outputText: 'published draft of the plan (revised: name the owner)' });

    const shown = await runCli([...fixture, ...store, 'show', waiting.runId, '--json']);
    expect(shown.status, shown.stderr).toBe(0);
    const record = JSON.parse(shown.stdout) as { status: string; graph: string; events: Array<{ type: string; path: string; nodeId: string | null }> };
    expect(record).toMatchObject({ status: 'completed', graph: 'review', path: ['draft', 'spell', 'facts', 'revise', 'publish'] });
    const [shownText, listed] = await Promise.all([runCli([...fixture, ...store, 'show', waiting.runId]), runCli([...fixture, ...store, 'runs', '--json'])]);
    expect(shownText.stdout).toContain('\npath: draft → spell → facts → revise → publish\n');
    expect((JSON.parse(listed.stdout) as Array<{ runId: string; path: string[] }>).find((r) => r.runId === waiting.runId)?.path).toEqual(['draft', 'spell', 'facts', 'revise', 'publish']);
    // The fork's branches are in the stored trace, each in its lane.
    expect(record.events.filter((e) => e.type === 'node.completed' && e.path !== 'root').map((e) => `${e.path} ${e.nodeId}`)).toEqual(['root/spell[1] spell', 'root/facts[2] facts']);
  }, 300_000);

  it('runs a workflow under the Stately inspector, answering its gate with --reply', async () => {
    const port = await freePort();
    const result = await runCli([...fixture, ...db(), 'inspect', 'the plan', '--graph', 'review', '--reply', 'PASS', '--no-wait', '--exit', '--port', String(port)]);
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toContain(`Stately inspector for graph "review": open http://127.0.0.1:${port}`);
    // The path names steps while the run waits as at its end (no engine ids: fork, approval:person).
    expect(result.stdout).toMatch(/run \S+: waiting\npath: draft → spell → facts\n/);
    expect(result.stdout).toMatch(/run \S+: completed\npath: draft → spell → facts → publish\n[\s\S]*answer: published draft of the plan/);
  }, 300_000);

  it('refuses a reply a gate cannot take, without moving the run; runs a workflow with a structured output', async () => {
    const store = db();
    const started = await runCli([...fixture, ...store, 'start', 'review', 'x', '--json']);
    const { runId } = JSON.parse(started.stdout) as { runId: string };
    const bad = await runCli([...fixture, ...store, 'resume', runId, '--reply', 'looks fine to me']);
    expect(bad.status).not.toBe(0);
    expect(bad.stderr).toMatch(/PASS, FAIL or TIMEOUT.*\[invalid_reply\]/);
    const still = await runCli([...fixture, ...store, 'runs', '--json']);
    expect((JSON.parse(still.stdout) as Array<{ runId: string; status: string }>).find((r) => r.runId === runId)?.status).toBe('waiting');

    const tally = await runCli([...fixture, ...store, 'start', 'tally', 'one two three', '--json']);
    expect(tally.status, tally.stderr).toBe(0);
    expect(JSON.parse(tally.stdout)).toMatchObject({ status: 'completed', outputText: '{"words":3}' });
  }, 300_000);
});
