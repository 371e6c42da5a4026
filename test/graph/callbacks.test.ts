import { spawnSync } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  CallbackError,
  MemoryRecorder,
  StateGraph,
  humanNode,
  type RunOptions,
  type WorkflowRun,
} from '../../src/index.js';
import { z } from 'zod';
import { Agent, AgentNode, tool } from '../../src/index.js';
import { ScriptedModel } from '../../src/testing/index.js';
import { sqliteTarget } from '../persistence/storeTargets.js';

/** Every unhandled rejection and uncaught exception the process sees while a test runs. */
const escaped: unknown[] = [];
const onEscape = (error: unknown) => escaped.push(error);

beforeEach(() => {
  escaped.length = 0;
  process.on('unhandledRejection', onEscape);
  process.on('uncaughtException', onEscape);
});

afterEach(() => {
  process.off('unhandledRejection', onEscape);
  process.off('uncaughtException', onEscape);
});

/** Lets every pending rejection surface (Node reports unhandled ones after the microtask queue drains). */
async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
}

const twoNodes = () => new StateGraph({ name: 'two' }).addNode('a', () => 'from a').addNode('b', (_ctx, req) => `b got ${String(req.input)}`).start('a');

const rejectNow = async (message: string): Promise<never> => {
  throw new Error(message);
};

type Mode = 'throws' | 'rejects';
const broken =
  (mode: Mode, message: string) =>
  (..._args: unknown[]): never => {
    if (mode === 'throws') throw new Error(message);
    return rejectNow(message) as never;
  };

describe.each(['in memory', 'stored in SQLite'] as const)('callbacks that fail, %s', (where) => {
  let close: () => Promise<void> = async () => {};
  let store: RunOptions['store'];
  beforeEach(() => {
    if (where === 'in memory') {
      store = undefined;
      return;
    }
    const target = sqliteTarget();
    store = target.store;
    close = () => target.close();
  });
  afterEach(() => close());

  const run = (graph: StateGraph, options: RunOptions = {}): Promise<WorkflowRun> => graph.run('go', { ...options, ...(store ? { store } : {}) });

  for (const mode of ['throws', 'rejects'] as const) {
    it(`fails the run with route_failed when a router ${mode}, and nothing escapes`, async () => {
      const graph = twoNodes().addConditionalEdges('a', broken(mode, 'router broke')).addEdge('a', 'b');
      const result = await run(graph);
      expect(result.status).toBe('failed');
      expect(result.error?.code).toBe('route_failed');
      expect(result.error?.message).toContain('"a"');
      await settle();
      expect(escaped).toEqual([]);
    });

    it(`fails the run with route_failed when a condition ${mode}, and nothing escapes`, async () => {
      const graph = twoNodes().addTransition('a', 'b', broken(mode, 'condition broke'));
      const result = await run(graph);
      expect(result.status).toBe('failed');
      expect(result.error?.code).toBe('route_failed');
      await settle();
      expect(escaped).toEqual([]);
    });

    it(`fails the run with node_failed when a node ${mode}`, async () => {
      const graph = new StateGraph().addNode('a', broken(mode, 'node broke')).start('a');
      const result = await run(graph);
      expect(result.status).toBe('failed');
      expect(result.error?.code).toBe('node_failed');
      expect(result.error?.message).toContain('node broke');
      await settle();
      expect(escaped).toEqual([]);
    });

    it(`detaches a recorder that ${mode}, reports callback.failed to the others and finishes the run`, async () => {
      const memory = new MemoryRecorder();
      let calls = 0;
      const recorder = { record: (..._args: unknown[]) => ((calls += 1), broken(mode, 'disk full')()) };
      const result = await run(twoNodes().addEdge('a', 'b'), { recorders: [recorder, memory] });
      await settle();
      expect(result.status).toBe('completed');
      expect(result.outputText).toBe('b got from a');
      const failed = memory.events.filter((e) => e.type === 'callback.failed');
      expect(failed).toHaveLength(1);
      expect(failed[0]).toMatchObject({ callback: 'recorder', error: { code: 'callback_failed' } });
      expect(String((failed[0]!.error as { message: string }).message)).toContain('disk full');
      expect(result.callbackErrors?.[0]).toBeInstanceOf(CallbackError);
      expect(result.callbackErrors?.[0]?.code).toBe('callback_failed');
      // A throwing recorder is detached after its first event; a rejecting one once its first rejection lands.
      if (mode === 'throws') expect(calls).toBe(1);
      expect(memory.events.at(-1)?.type).toBe('run.completed');
      expect(escaped).toEqual([]);
    });

    it(`detaches an onEvent listener that ${mode}; recorders still see every event in order`, async () => {
      const memory = new MemoryRecorder();
      const result = await run(twoNodes().addEdge('a', 'b'), { onEvent: broken(mode, 'listener broke'), recorders: [memory] });
      await settle();
      expect(result.status).toBe('completed');
      expect(result.callbackErrors?.map((e) => (e as CallbackError).callback)).toEqual(['onEvent']);
      const seqs = memory.events.map((e) => e.seq);
      expect(seqs).toEqual(seqs.map((_, i) => i + 1));
      expect(memory.events.some((e) => e.type === 'callback.failed' && e.callback === 'onEvent')).toBe(true);
      expect(escaped).toEqual([]);
    });

    it(`stops calling an inspect observer that ${mode} and finishes the run`, async () => {
      let calls = 0;
      const inspect = (..._args: unknown[]) => ((calls += 1), broken(mode, 'inspector broke')());
      const result = await run(twoNodes().addEdge('a', 'b'), { inspect });
      await settle();
      expect(result.status).toBe('completed');
      expect(result.callbackErrors?.map((e) => (e as CallbackError).callback)).toEqual(['inspect']);
      expect(result.callbackErrors?.[0]?.message).toContain('inspector broke');
      if (mode === 'throws') expect(calls).toBe(1);
      expect(escaped).toEqual([]);
    });

    it(`replaces a clock whose now() ${mode === 'throws' ? 'throws' : 'returns NaN'} with the system clock`, async () => {
      const now = mode === 'throws' ? broken('throws', 'clock broke') : () => Number.NaN;
      const memory = new MemoryRecorder();
      const result = await run(twoNodes().addEdge('a', 'b'), { clock: { now }, recorders: [memory] });
      expect(result.status).toBe('completed');
      expect(result.callbackErrors?.map((e) => (e as CallbackError).callback)).toEqual(['clock']);
      expect(memory.events.every((e) => Number.isFinite(e.at))).toBe(true);
      expect(escaped).toEqual([]);
    });

    it(`waits with a reason naming the problem when a human node's reason ${mode}`, async () => {
      const graph = new StateGraph().addNode('h', humanNode({ reason: broken(mode, 'reason broke') })).start('h');
      const result = await run(graph);
      await settle();
      expect(result.status).toBe('waiting');
      expect(result.waiting?.reason).toMatch(/^waiting for a human reply \(/);
      expect(result.callbackErrors?.map((e) => (e as CallbackError).callback)).toEqual(['reason']);
      expect(escaped).toEqual([]);
    });
  }

  for (const mode of ['throws', 'rejects'] as const) {
    it(`turns a tool that ${mode} into a failed observation the model reads, and the run goes on`, async () => {
      const lookup = tool({ name: 'lookup', description: 'Looks an order up', parameters: z.object({ id: z.string() }), execute: broken(mode, 'order service down') });
      const model = new ScriptedModel([{ toolCalls: [{ name: 'lookup', arguments: { id: '42' } }] }, { text: 'The order service is down; try again later.' }]);
      const agent = new Agent({ name: 'support', instructions: 'help', model, tools: [lookup] });
      const graph = new StateGraph({ name: 'agentic' }).addNode('answer', new AgentNode(agent)).start('answer');
      const memory = new MemoryRecorder();
      const result = await run(graph, { recorders: [memory] });
      await settle();
      expect(result.status).toBe('completed');
      expect(result.outputText).toBe('The order service is down; try again later.');
      expect(memory.ofType('tool.result')[0]).toMatchObject({ result: { ok: false, code: 'tool_failed', error: expect.stringContaining('order service down') } });
      expect(escaped).toEqual([]);
    });
  }

  it('stores callback.failed in the run’s event log', async () => {
    if (store === undefined) return;
    const result = await run(twoNodes().addEdge('a', 'b'), { recorders: [{ record: broken('throws', 'disk full') }] });
    const events = await store.listEvents(result.runId);
    expect(events.filter((e) => e.type === 'callback.failed').map((e) => e.data.callback)).toEqual(['recorder']);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
  });
});

describe('stream() with a failing onEvent', () => {
  it('still yields every event, in order, ending with run.completed', async () => {
    const types: string[] = [];
    for await (const event of twoNodes().addEdge('a', 'b').stream('go', { onEvent: broken('throws', 'listener broke') })) types.push(event.type);
    expect(types[0]).toBe('run.started');
    expect(types).toContain('callback.failed');
    expect(types.at(-1)).toBe('run.completed');
  });
});

describe('a process running a graph whose async router rejects', () => {
  it('exits 0 after the run fails: the rejection never reaches the process', () => {
    const script = `
      import { StateGraph } from './src/index.ts';
      const graph = new StateGraph().addNode('a', () => 'a').addNode('b', () => 'b').start('a')
        .addConditionalEdges('a', async () => { throw new Error('async router broke'); });
      const run = await graph.run('go');
      await new Promise((resolve) => setTimeout(resolve, 50));
      console.log(JSON.stringify({ status: run.status, code: run.error?.code }));
    `;
    const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8', timeout: 120_000 });
    expect(child.stderr).not.toMatch(/async router broke/);
    expect(child.status).toBe(0);
    expect(JSON.parse(child.stdout.trim().split('\n').at(-1)!)).toEqual({ status: 'failed', code: 'route_failed' });
  }, 130_000);
});

it('refuses run options of the wrong type before anything runs, naming the field', async () => {
  const graph = twoNodes();
  const bad: Array<[string, unknown]> = [
    ['onEvent', 'log'],
    ['recorders', {}],
    ['recorders', [null]],
    ['inspect', 42],
    ['clock', { now: 5 }],
    ['signal', {}],
    ['store', {}],
    ['leaseMs', -1],
    ['owner', ''],
    ['runId', 7],
  ];
  for (const [field, value] of bad) {
    const error = await graph.run('go', { [field]: value } as RunOptions).catch((e: unknown) => e);
    expect(error, field).toMatchObject({ name: 'GraphDefinitionError', code: 'graph_definition' });
    expect((error as Error).message, field).toContain(field);
  }
  await expect(graph.run('go', null as never)).rejects.toMatchObject({ code: 'graph_definition' });
});
