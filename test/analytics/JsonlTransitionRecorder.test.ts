import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { JsonlTransitionRecorder, StateGraph, TransitionRecorder, readTransitionsFile, type WorkflowContext } from '../../src/index.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
const tempFile = () => {
  const dir = mkdtempSync(join(tmpdir(), 'sb-jsonl-batch-'));
  dirs.push(dir);
  return join(dir, 't.jsonl');
};
const lineCount = (file: string) => (existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean).length : 0);

/** A loop of `steps` steps whose node notes how many lines the file held when it ran. */
function loop(steps: number, file: string, seen: number[], pause = 0) {
  const body = async (ctx: WorkflowContext) => {
    seen.push(lineCount(file));
    if (pause > 0) await new Promise((resolve) => setTimeout(resolve, pause));
    ctx.put('n', (ctx.get<number>('n') ?? 0) + 1);
    return null;
  };
  return new StateGraph({ name: 'batched', maxSteps: steps + 1 })
    .addNode('a', body)
    .start('a')
    .addConditionalEdges('a', (ctx) => ((ctx.get<number>('n') ?? 0) >= steps ? '__end__' : 'a'));
}

/** Resolves when the file holds `lines` lines, or after 10 s with what it holds then. */
async function linesReach(file: string, lines: number): Promise<number> {
  const until = Date.now() + 10_000;
  while (lineCount(file) < lines && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 2));
  return lineCount(file);
}

describe('JsonlTransitionRecorder writes in batches', () => {
  it('writes a batch when it is full and the rest when the run ends, equal to the records kept in memory', async () => {
    const file = tempFile();
    const seen: number[] = [];
    const memory = new TransitionRecorder();
    // Step k (from 1) waits until the full batches of the k transitions made before it are in the
    // file (written by the writer thread while the run goes on), and notes how many lines it found.
    const body = async (ctx: WorkflowContext) => {
      const k = seen.length + 1;
      seen.push(await linesReach(file, Math.floor(k / 3) * 3));
      ctx.put('n', k);
      return null;
    };
    const graph = new StateGraph({ name: 'batched', maxSteps: 8 })
      .addNode('a', body)
      .start('a')
      .addConditionalEdges('a', (ctx) => ((ctx.get<number>('n') ?? 0) >= 7 ? '__end__' : 'a'));
    const run = await graph.run('go', { recorders: [new JsonlTransitionRecorder(file, { batch: 3 }), memory] });
    expect(run.status).toBe('completed');
    // When step k runs, the run has made k transitions (the start and k-1 edges): written in threes,
    // never a part of a batch.
    expect(seen).toEqual([0, 0, 3, 3, 3, 6, 6]);
    expect(readTransitionsFile(file)).toEqual(memory.records);
    expect(memory.records).toHaveLength(8);
  });

  it('holds lines while a run goes on, writes them after flushMs, and on flush()', async () => {
    const file = tempFile();
    const quick: number[] = [];
    await loop(4, file, quick).run('go', { recorders: [new JsonlTransitionRecorder(file)] });
    // The default batch is larger than the run: nothing is written before it ends.
    expect(quick).toEqual([0, 0, 0, 0]);
    expect(lineCount(file)).toBe(5);

    const slowFile = tempFile();
    const slow: number[] = [];
    await loop(3, slowFile, slow, 40).run('go', { recorders: [new JsonlTransitionRecorder(slowFile, { flushMs: 5 })] });
    expect(slow[0]).toBe(0);
    // Each line waited at most flushMs: when the next step runs, all but its own start hop are in the file.
    expect(slow.slice(1)).toEqual([1, 2]);

    const manual = new JsonlTransitionRecorder(tempFile(), { flushMs: 60_000 });
    manual.hop({ type: 'run.started', graph: 'g' }, 'r', 'root', { now: () => 1 });
    manual.hop({ type: 'node.started', nodeId: 'a' }, 'r', 'root', { now: () => 2 });
    expect(lineCount(manual.file)).toBe(0);
    manual.flush();
    expect(readTransitionsFile(manual.file).map((r) => `${r.from}>${r.to}`)).toEqual(['__start__>a']);
  });

  it('appends after a line a killed process cut short on a line of its own, and the file still reads back whole', async () => {
    const file = tempFile();
    const first = new TransitionRecorder();
    await loop(2, file, []).run('go', { recorders: [new JsonlTransitionRecorder(file), first] });
    // The process dies in the middle of its next append: the file ends inside a line.
    const whole = readFileSync(file, 'utf8');
    const torn = `${JSON.stringify({ ...first.records[0]!, runId: 'killed' })}`.slice(0, 40);
    writeFileSync(file, `${whole}${torn}`);
    expect(readTransitionsFile(file)).toEqual(first.records);
    // Another process records to the same file.
    const second = new TransitionRecorder();
    await loop(3, file, []).run('again', { recorders: [new JsonlTransitionRecorder(file), second] });
    const lines = readFileSync(file, 'utf8').split('\n');
    expect(lines).toContain(torn);
    expect(readTransitionsFile(file)).toEqual([...first.records, ...second.records]);
    // A line that is whole but not a record is still refused, naming it.
    writeFileSync(file, `${readFileSync(file, 'utf8')}{"runId":1}\n`);
    expect(() => readTransitionsFile(file)).toThrowError(/line \d+ is not a TransitionRecord/);
  });

  it('keeps the record a running recorder appended right after a line another process was killed writing', async () => {
    // Two processes append to one file; one dies inside its append while the other, already running, writes on.
    const file = tempFile();
    const first = new TransitionRecorder();
    const writer = new JsonlTransitionRecorder(file, { batch: 1 });
    const graph = loop(2, file, []);
    await graph.run('go', { recorders: [writer, first] });
    const torn = JSON.stringify({ ...first.records[0]!, runId: 'killed' }).slice(0, 30);
    writeFileSync(file, `${readFileSync(file, 'utf8')}${torn}`);
    const second = new TransitionRecorder();
    await graph.run('again', { recorders: [writer, second] });
    expect(readFileSync(file, 'utf8')).toContain(`${torn}{"runId":`);
    expect(readTransitionsFile(file)).toEqual([...first.records, ...second.records]);
  });

  it('writes to a named pipe another process reads, without blocking on it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sb-jsonl-fifo-'));
    dirs.push(dir);
    const fifo = join(dir, 'pipe');
    execFileSync('mkfifo', [fifo]);
    const out = join(dir, 'out');
    const reader = spawn('sh', ['-c', 'cat "$0" > "$1"', fifo, out]);
    const done = new Promise((resolve) => reader.on('exit', resolve));
    // The run goes in a process of its own: a recorder that opened the pipe to read its last byte
    // would block that process's thread for ever, which no timeout inside this one could end.
    const script = `
      import { JsonlTransitionRecorder, StateGraph, TransitionRecorder } from './src/index.ts';
      const kept = new TransitionRecorder();
      const recorder = new JsonlTransitionRecorder(process.argv[1]);
      const run = await new StateGraph({ name: 'piped' }).addNode('a', () => 'a').start('a').run('go', { recorders: [recorder, kept] });
      console.log(JSON.stringify({ status: run.status, error: recorder.error?.message ?? null, records: kept.records }));
    `;
    const child = await new Promise<{ code: number | null; signal: string | null; stdout: string }>((resolve) => {
      let stdout = '';
      const proc = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script, fifo], { stdio: ['ignore', 'pipe', 'inherit'] });
      proc.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
      const timer = setTimeout(() => proc.kill('SIGKILL'), 60_000);
      proc.on('exit', (code, signal) => {
        clearTimeout(timer);
        resolve({ code, signal, stdout });
      });
    });
    if (child.signal !== null) reader.kill();
    expect(child.signal, 'the run never returned: the recorder blocked on the pipe').toBeNull();
    expect(child.code).toBe(0);
    const result = JSON.parse(child.stdout.trim().split('\n').at(-1)!) as { status: string; error: string | null; records: unknown[] };
    expect(result.status).toBe('completed');
    expect(result.error).toBeNull();
    await done;
    expect(readTransitionsFile(out)).toEqual(result.records);
  }, 90_000);

  it('keeps the full batches handed to the writer thread when the process exits in the middle of a run', async () => {
    const file = tempFile();
    // Step 200 ends the process: the run has made 200 transitions (its start and 199 edges), all in
    // full batches of 2, handed to the writer thread as they filled, the last just before the exit.
    const script = `
      import { JsonlTransitionRecorder, StateGraph } from './src/index.ts';
      const recorder = new JsonlTransitionRecorder(process.argv[1], { batch: 2, flushMs: 60000 });
      let n = 0;
      const graph = new StateGraph({ name: 'exits', maxSteps: 1000 })
        .addNode('a', () => { n += 1; if (n === 200) process.exit(0); return null; })
        .start('a')
        .addConditionalEdges('a', () => 'a');
      await graph.run('go', { recorders: [recorder] });
    `;
    execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script, file], { stdio: ['ignore', 'ignore', 'inherit'], timeout: 60_000 });
    const records = readTransitionsFile(file);
    expect(records).toHaveLength(200);
    expect(records.filter((r) => r.from === 'a' && r.to === 'a')).toHaveLength(199);
  }, 90_000);

  it('keeps a write error and stops, the run going on', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sb-jsonl-batch-'));
    dirs.push(dir);
    // The file's directory is a regular file: the first write fails.
    const blocked = join(dir, 'blocked');
    writeFileSync(blocked, 'x');
    const recorder = new JsonlTransitionRecorder(join(blocked, 't.jsonl'));
    const run = await loop(2, join(blocked, 't.jsonl'), []).run('go', { recorders: [recorder] });
    expect(run.status).toBe('completed');
    expect(recorder.error).toBeInstanceOf(Error);
  });
});
