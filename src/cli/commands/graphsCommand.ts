import type { Command } from 'commander';
import { machineGraph } from '../../trace/machineGraph.js';
import type { CliContext } from '../CliContext.js';

/** `graphs`: the graphs of the graphs module (name, kind, start node, nodes, human and coordinator nodes); the first is the default. */
export function addGraphsCommand(program: Command, cli: CliContext): void {
  program
    .command('graphs')
    .description('list the graphs of the graphs module (see --graphs); the first is the default')
    .option('--json', 'print JSON')
    .action(async (opts: { json?: boolean }) => {
      const rows = (await cli.graphs()).map((graph, i) => {
        const shape = machineGraph(graph);
        const ids = (kind: string) => shape.nodes.filter((n) => n.kind === kind).map((n) => n.id);
        return { name: graph.name, kind: shape.kind, default: i === 0, start: shape.start, nodes: shape.nodes.length, humanNodes: ids('human'), coordinators: ids('coordinator') };
      });
      if (opts.json) return cli.out(JSON.stringify(rows));
      if (rows.length === 0) return cli.out('the graphs module lists no graph');
      const width = Math.max(...rows.map((r) => r.name.length));
      for (const r of rows) {
        const extra = [r.humanNodes.length > 0 ? `waits at ${r.humanNodes.join(', ')}` : '', r.coordinators.length > 0 ? `coordinator ${r.coordinators.join(', ')}` : ''].filter(Boolean).join('; ');
        cli.out(`${r.name.padEnd(width)}  ${r.kind}, ${r.nodes} nodes, starts at ${r.start ?? '(none)'}${extra ? `; ${extra}` : ''}${r.default ? '  (default)' : ''}`);
      }
    });
}
