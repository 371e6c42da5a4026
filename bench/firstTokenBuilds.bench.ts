import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import OpenAI from 'openai';
import { startFakeOpenAIServer } from '../src/testing/index.js';
import { buildArgs } from './buildArgs.js';
import { median } from './measure.js';

/**
 * `npx tsx bench/firstTokenBuilds.bench.ts before=<bundle> after=<bundle> …` (not part of `npm run
 * bench`; it writes nothing): the first-token figure of bench/durable.bench.ts — a one-agent graph
 * streamed from the local OpenAI-compatible server, in memory and stored in SQLite, against the raw
 * `openai` stream — for several builds of the library loaded side by side in one process, every
 * task once per round in a rotated order. Prints each task's median time to the first token, its
 * median paired difference over the raw stream, and each build's durable run against the first
 * build's (median of paired differences), and each task's median time to the end of the answer
 * (every token through the run's events). A build is the path of its `dist/bundle/index.js` (see
 * bench/durableBuilds.bench.ts for making one of an older commit). Environment:
 * SWITCHBOARD_BENCH_ROUNDS (default 81).
 */
const ROUNDS = Number(process.env['SWITCHBOARD_BENCH_ROUNDS'] ?? 81);
const TOKENS = Array.from({ length: 200 }, (_, i) => `tok${i}`).join(' ');
const dir = mkdtempSync(join(tmpdir(), 'sb-bench-first-token-'));
const server = await startFakeOpenAIServer();
server.enqueue({ text: TOKENS, repeat: 1_000_000 });
const client = new OpenAI({ baseURL: server.baseURL, apiKey: 'bench', maxRetries: 0 });

/** Milliseconds from the call to the first piece of the answer, and to the end of the stream. */
async function timeToFirst(events: AsyncIterable<unknown>, isFirst: (event: any) => boolean, started: bigint): Promise<[first: number, whole: number]> {
  let first = 0;
  for await (const event of events) if (first === 0 && isFirst(event)) first = Number(process.hrtime.bigint() - started) / 1e6;
  return [first, Number(process.hrtime.bigint() - started) / 1e6];
}

async function raw(): Promise<[number, number]> {
  const started = process.hrtime.bigint();
  const stream = await client.chat.completions.create({ model: 'bench', messages: [{ role: 'user', content: 'go' }], stream: true });
  return timeToFirst(stream, (chunk) => (chunk.choices[0]?.delta?.content ?? '') !== '', started);
}

interface Task {
  name: string;
  run: () => Promise<[number, number]>;
  times: number[];
  wholes: number[];
}
const tasks: Task[] = [{ name: 'raw openai stream', run: raw, times: [], wholes: [] }];
const closers: Array<() => Promise<void>> = [];

try {
  for (const { label, index } of buildArgs()) {
    // Each build is loaded at run time, untyped.
    const sb: any = await import(pathToFileURL(index).href);
    const agent = new sb.Agent({ name: 'writer', instructions: 'Write.', model: new sb.OpenAIChatModel({ model: 'bench', client }) });
    const graph = new sb.StateGraph({ name: 'first-token' }).addNode('write', new sb.AgentNode(agent)).start('write');
    const store = new sb.SqliteRunStore({ file: join(dir, `${label}.db`) });
    closers.push(() => store.close());
    const streamed = (options: object) => () => timeToFirst(graph.stream('go', options), (event) => event.type === 'model.delta', process.hrtime.bigint());
    tasks.push({ name: `${label} durable`, run: streamed({ store }), times: [], wholes: [] }, { name: `${label} memory`, run: streamed({}), times: [], wholes: [] });
  }
  for (let i = 0; i < 10; i++) for (const task of tasks) await task.run();
  const load = loadavg()[0] ?? 0;
  for (let round = 0; round < ROUNDS; round++) {
    for (let k = 0; k < tasks.length; k++) {
      const task = tasks[(k + round) % tasks.length]!;
      const [first, whole] = await task.run();
      task.times.push(first);
      task.wholes.push(whole);
    }
  }
  const rawTimes = tasks[0]!.times;
  const over = (times: number[], base: number[]) => median(times.map((t, i) => t - base[i]!));
  console.log(`${ROUNDS} rounds, load ${load.toFixed(1)} → ${(loadavg()[0] ?? 0).toFixed(1)}`);
  for (const task of tasks) {
    const extra = task === tasks[0] ? '' : `, over the raw stream ${over(task.times, rawTimes).toFixed(3)} ms`;
    console.log(`${task.name}: ${median(task.times).toFixed(3)} ms${extra}; whole answer ${median(task.wholes).toFixed(3)} ms`);
  }
  const first = tasks[1]!;
  for (const task of tasks.slice(3).filter((t) => t.name.endsWith(' durable'))) {
    console.log(`${task.name} − ${first.name}: ${over(task.times, first.times).toFixed(3)} ms`);
  }
} finally {
  for (const close of closers) await close();
  await server.close();
  rmSync(dir, { recursive: true, force: true });
}
