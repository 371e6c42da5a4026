import { writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import { UsageError } from '../../errors/UsageError.js';
import { machineToJson } from '../../trace/machineToJson.js';
import { machineToMermaid } from '../../trace/machineToMermaid.js';
import type { CliContext } from '../CliContext.js';
import { findGraph } from './findGraph.js';

const FORMATS = ['json', 'mermaid'] as const;

/** `export <machine> --format json|mermaid`: a registered graph's compiled machine, to stdout or a file. */
export function addExportCommand(program: Command, cli: CliContext): void {
  program
    .command('export <machine>')
    .description("print a registered graph's XState machine as JSON (states, guards, actors) or a Mermaid state diagram")
    .option('--format <format>', `${FORMATS.join(' or ')}`, 'json')
    .option('-o, --out <file>', 'write to this file instead of stdout')
    .action(async (name: string, opts: { format: string; out?: string }) => {
      if (!(FORMATS as readonly string[]).includes(opts.format)) {
        throw new UsageError(`--format must be ${FORMATS.join(' or ')}; received "${opts.format}"`);
      }
      const graph = findGraph(await cli.graphs(), name);
      const text = opts.format === 'json' ? `${JSON.stringify(machineToJson(graph), null, 2)}\n` : machineToMermaid(graph);
      if (opts.out === undefined) return cli.out(text.trimEnd());
      writeFileSync(opts.out, text);
      cli.err(`wrote ${opts.out}`);
    });
}
