/**
 * The server side of bench/sse.bench.ts, one child process per source tree measured: the
 * workbench server (`startServer`, what `switchboard serve` runs) over a fresh SQLite store, with
 * one graph, `ticker`: a `gate` node that waits for the parent's `go`, then `SSE_STEPS` nodes that
 * each sleep `SSE_INTERVAL_MS` and return `t<hrtime ns>` as their output text, so a client can
 * tell how long each `node.completed` took to reach it (CLOCK_MONOTONIC is shared by processes).
 *
 * `SSE_SRC` is the folder whose `src/index.ts` is imported (this checkout, or an older commit
 * extracted by the bench). Messages: `arm` (a new gate), `go` (open it; CPU time is counted from
 * here), `cpu` (CPU microseconds since `go`, and the system part), `stop`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

type Lib = typeof import('../../src/index.js');

const src = resolve(process.env.SSE_SRC ?? '.', 'src/index.ts');
const steps = Number(process.env.SSE_STEPS ?? 20);
const intervalMs = Number(process.env.SSE_INTERVAL_MS ?? 100);
const lib = (await import(pathToFileURL(src).href)) as Lib;

let release: () => void = () => undefined;
let gate = Promise.resolve();
const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

const graph = new lib.StateGraph<null, string>({ name: 'ticker', maxSteps: steps + 2 }).addNode('gate', async () => {
  await gate;
  return null;
});
for (let i = 1; i <= steps; i++) {
  graph.addNode(`s${i}`, async () => {
    await sleep(intervalMs);
    return `t${process.hrtime.bigint()}`;
  });
  graph.addEdge(i === 1 ? 'gate' : `s${i - 1}`, `s${i}`);
}
graph.start('gate');

const dir = mkdtempSync(join(tmpdir(), 'sb-sse-bench-'));
const store = new lib.SqliteRunStore({ file: join(dir, 'runs.db') });
const server = await lib.startServer({ store, graphs: [graph], port: 0 });
let cpu0 = process.cpuUsage();

process.on('message', async (message: { type: string }) => {
  if (message.type === 'arm') {
    gate = new Promise<void>((done) => (release = done));
    process.send!({ type: 'armed' });
  } else if (message.type === 'go') {
    cpu0 = process.cpuUsage();
    release();
  } else if (message.type === 'cpu') {
    const used = process.cpuUsage(cpu0);
    process.send!({ type: 'cpu', us: used.user + used.system, systemUs: used.system });
  } else if (message.type === 'stop') {
    await server.stop(2000);
    await store.close();
    rmSync(dir, { recursive: true, force: true });
    process.exit(0);
  }
});
process.send!({ type: 'ready', url: server.url });
