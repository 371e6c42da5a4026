// What the compiled CLI costs to start, side by side with a bare `node -e 0`, and what a report
// scenario costs once the MCP server runs. Measures the build in dist/ (run `npm run build` first,
// or `npm run bench:startup`, which builds). Run: npm run bench:startup
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { interleaved, median } from './measure.js';
import { writeResultsSection } from './resultsSection.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const dist = (path: string) => new URL(`../dist/${path}`, import.meta.url);
if (!existsSync(dist('bundle/cli.js'))) {
  process.stderr.write('dist/ is missing: run `npm run build` first (or `npm run bench:startup`)\n');
  process.exit(2);
}
const ROUNDS = Number(process.env.STARTUP_ROUNDS ?? 15);
const REPORT_RUNS = Number(process.env.REPORT_RUNS ?? 10);
const dir = mkdtempSync(join(tmpdir(), 'switchboard-startup-'));
// The compiled package as a user runs it: no source condition, no model key, the embedded SQLite store.
const env = { ...process.env, NODE_OPTIONS: '', OPENAI_API_KEY: '', SWITCHBOARD_DATABASE_URL: '', SWITCHBOARD_DB: join(dir, 'runs.db') };
const BIN = join(ROOT, 'bin', 'switchboard.js');

const COMMANDS = {
  'node -e 0': ['-e', '0'],
  'switchboard --version': [BIN, '--version'],
  'switchboard run "hello" --json': [BIN, 'run', 'hello', '--json'],
} as const;
type Key = keyof typeof COMMANDS;
const keys = Object.keys(COMMANDS) as Key[];

/** Runs one command to its end; a failure stops the benchmark (a broken command measures nothing). */
const runCommand = (key: Key) =>
  new Promise<void>((resolve, reject) => {
    const child = spawn(process.execPath, COMMANDS[key], { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) => (code === 0 ? resolve() : reject(new Error(`${key} exited ${code}: ${stderr.slice(-500)}`))));
  });

const load = loadavg()[0]!.toFixed(2);
const samples = await interleaved<Key>(runCommand, {
  keys,
  warmupRounds: 1,
  rounds: ROUNDS,
  onSample: (key, round, ms) => process.stderr.write(`  ${key} round ${round + 1}: ${ms.toFixed(0)} ms\n`),
});
/** The median of the per-round ratios (each round runs both commands, so drift cancels). */
const pairedRatio = (a: Key, b: Key) => median(samples[a].map((ms, i) => ms / samples[b][i]!));

// A report scenario in one process (the workbench, `scenarios`): the first run starts the MCP server,
// the next ones reuse it. Side by side: a server started for every run (what each run paid before).
type Graphs = { graphs: Array<{ name: string; run(input: string): Promise<{ status: string; outputText: string | null }> }>; scenarios: Array<{ id: string; message: string }> };
const { graphs, scenarios } = (await import(dist('machines/index.js').href)) as Graphs;
const { salesReportService } = (await import(dist('specialists/index.js').href)) as { salesReportService: () => { close(): Promise<void> } };
const scenario = scenarios.find((s) => s.id === '3-report')!;
const graph = graphs.find((g) => g.name === 'customer-service')!;
const timeRun = async () => {
  const start = performance.now();
  const run = await graph.run(scenario.message);
  if (!run.outputText?.includes('1,286,000')) throw new Error(`the report scenario did not answer with the figures: ${run.outputText}`);
  return performance.now() - start;
};
await salesReportService().close();
const firstMs = await timeRun();
const reused: number[] = [];
const restarted: number[] = [];
for (let i = 0; i < REPORT_RUNS; i++) {
  reused.push(await timeRun());
  await salesReportService().close();
  restarted.push(await timeRun());
}
await salesReportService().close();
rmSync(dir, { recursive: true, force: true });

const row = (key: Key) => `| \`${key}\` | ${median(samples[key]).toFixed(0)} ms | ${key === 'node -e 0' ? '1' : pairedRatio(key, 'node -e 0').toFixed(2)}× |`;
const markdown = `## CLI start-up and the report server (bench/startup.bench.ts)

Run: \`npm run bench:startup\` (builds dist/, then measures the compiled CLI as installed: no tsx,
no model key, SQLite). ${ROUNDS} interleaved rounds of whole processes (rotating order, one warm-up
round); medians, and the median of the per-round ratios against \`node -e 0\`. ${cpus().length} cores,
load average ${load} at the start, Node ${process.version}.

| command | median wall | ÷ \`node -e 0\` (paired) |
| --- | --- | --- |
${keys.map(row).join('\n')}

Report scenario (\`3-report\`: customer-service graph, sales report over MCP), in one process:
first run (starts the server) ${firstMs.toFixed(0)} ms; later runs, server kept: median
${median(reused).toFixed(0)} ms; server started for every run (as before): median ${median(restarted).toFixed(0)} ms
(${REPORT_RUNS} of each, alternating).`;
process.stdout.write(`${markdown}\n`);
writeResultsSection('startup', markdown);
