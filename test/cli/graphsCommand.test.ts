import { describe, expect, it } from 'vitest';
import { runCli } from '../support/runCli.js';

const fixture = ['--graphs', 'test/fixtures/traceGraphs.ts'];

describe('switchboard graphs', () => {
  it('lists the graphs of the graphs module, the first as the default, in text and JSON', async () => {
    const [text, json] = await Promise.all([runCli([...fixture, 'graphs']), runCli([...fixture, 'graphs', '--json'])]);
    expect(text.status, text.stderr).toBe(0);
    const lines = text.stdout.trimEnd().split('\n');
    expect(lines.map((l) => l.split(' ')[0])).toEqual(['support', 'coordinated', 'twice']);
    expect(lines[0]).toMatch(/^support +graph, 5 nodes, starts at classify; waits at human {2}\(default\)$/);
    expect(lines[1]).toContain('coordinator dispatch');
    expect(json.status, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual([
      { name: 'support', kind: 'graph', default: true, start: 'classify', nodes: 5, humanNodes: ['human'], coordinators: [] },
      { name: 'coordinated', kind: 'graph', default: false, start: 'plan', nodes: 3, humanNodes: [], coordinators: ['dispatch'] },
      { name: 'twice', kind: 'sequential', default: false, start: expect.any(String), nodes: 2, humanNodes: [], coordinators: [] },
    ]);
  }, 120_000);

  it('is listed in the help', async () => {
    const help = await runCli(['--help']);
    expect(help.stdout).toMatch(/^ {2}graphs .*list the graphs of the graphs module/m);
  }, 60_000);
});
