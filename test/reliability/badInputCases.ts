import { z } from 'zod';
import {
  MemoryRecorder,
  SequentialWorkflow,
  StateGraph,
  SwitchboardError,
  humanNode,
  resumeRun,
  type AgentRequest,
  type RunOptions,
  type RunStore,
  type SwitchboardErrorCode,
  type WorkflowContext,
  type WorkflowRun,
} from '../../src/index.js';

/** Where a case runs: no store, a SQLite file, or PostgreSQL. */
export type Target = 'memory' | 'sqlite' | 'postgres';

/** The kinds of bad input the generator makes. */
export const CATEGORIES = ['graph-definition', 'run-input', 'node-result', 'callback', 'state-value', 'huge-value', 'store-call', 'resume'] as const;
export type Category = (typeof CATEGORIES)[number];

/** What a case may use: the target's stores (one with a 64 KiB value limit) and the engine's deadline for the case. */
export interface CaseEnv {
  store: RunStore | undefined;
  /** The same kind of store with `maxValueBytes: 65536` (undefined in memory). */
  smallStore: RunStore | undefined;
  /** Run options every run of the case gets: the store and a deadline signal (the run is cancelled when it passes). */
  options(extra?: RunOptions): RunOptions;
}

/** One generated bad input. */
export interface BadCase {
  id: number;
  category: Category;
  label: string;
  target: Target;
  /** The codes a correct rejection may carry. */
  expect: readonly SwitchboardErrorCode[];
  /** Builds and runs what the case describes: resolves with a run (or nothing), or throws. */
  act(env: CaseEnv): Promise<unknown>;
}

/** A small seeded generator (mulberry32), so a failing case can be replayed from its seed and id. */
export function seeded(seed: number) {
  let a = seed >>> 0;
  const next = (): number => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (n: number) => Math.floor(next() * n),
    pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!,
  };
}
type Rng = ReturnType<typeof seeded>;

/** A labelled value made fresh for each case (several are mutable or stateful). */
type Sample = readonly [label: string, make: () => unknown];

const cycleObject = () => {
  const o: Record<string, unknown> = { id: 'SO1' };
  o.self = o;
  return o;
};
const cycleArray = () => {
  const a: unknown[] = [1];
  a.push(a);
  return a;
};
class Receipt {
  constructor(readonly id = 'r1') {}
}

/** Values JSON cannot hold, anywhere (refused by the store as by a state write). */
const NOT_JSON: readonly Sample[] = [
  ['a Map', () => new Map([['a', 1]])],
  ['a Set', () => new Set([1])],
  ['a Date', () => new Date(0)],
  ['a bigint', () => 5n],
  ['a function', () => () => 1],
  ['a symbol', () => Symbol('s')],
  ['NaN', () => Number.NaN],
  ['Infinity', () => Number.POSITIVE_INFINITY],
  ['-Infinity', () => Number.NEGATIVE_INFINITY],
  ['a cycle', cycleObject],
  ['an array cycle', cycleArray],
  ['a class instance', () => new Receipt()],
  ['a Uint8Array', () => new Uint8Array([1, 2])],
  ['an Error', () => new Error('x')],
  ['a RegExp', () => /x/],
  ['a Promise', () => Promise.resolve(1)],
  ['a nested Map', () => ({ order: { lines: [1, { at: new Map() }] } })],
  ['a nested Date', () => ({ when: [new Date(0)] })],
];

/** Values a state write refuses besides those (JSON would silently change them). */
const STATE_ONLY_BAD: readonly Sample[] = [
  ['undefined in an array', () => [1, undefined]],
  ['a sparse array', () => [1, , 3]], // eslint-disable-line no-sparse-arrays
  ['a symbol-keyed property', () => ({ [Symbol('k')]: 1 })],
];

const BAD_RESULTS: readonly Sample[] = [
  ['{ outputText: 5 }', () => ({ outputText: 5 })],
  ['{ outputText: {} }', () => ({ outputText: { text: 'hi' } })],
  ['{ outputText: [] }', () => ({ outputText: ['hi'] })],
  ['{ outputText: true }', () => ({ outputText: true })],
  ['{ outputText: 5n }', () => ({ outputText: 5n })],
  ['{ toolCalls: "x" }', () => ({ outputText: 'x', toolCalls: 'lookup' })],
  ['{ toolCalls: {} }', () => ({ toolCalls: {} })],
  ['{ usage: 12 }', () => ({ usage: 12 })],
  ['{ usage: { inputTokens: -1 } }', () => ({ usage: { inputTokens: -1 } })],
  ['{ usage: { totalTokens: NaN } }', () => ({ usage: { totalTokens: Number.NaN } })],
  ['{ usage: { outputTokens: "3" } }', () => ({ usage: { outputTokens: '3' } })],
  ['a number', () => 5],
  ['a boolean', () => false],
  ['a bigint', () => 5n],
  ['a symbol', () => Symbol('s')],
  ['a function', () => () => 'x'],
  ['an array', () => ['x']],
  ['an Error', () => new Error('returned, not thrown')],
  ['a Map', () => new Map([['outputText', 'x']])],
  ['a Set', () => new Set(['x'])],
  ['a Date', () => new Date(0)],
  ['a Uint8Array', () => new Uint8Array([1])],
];

/** What callbacks throw: Errors and everything else JavaScript lets one throw. */
const THROWN: readonly Sample[] = [
  ['an Error', () => new Error('boom')],
  ['a TypeError', () => new TypeError('not a function')],
  ['a string', () => 'plain string'],
  ['null', () => null],
  ['undefined', () => undefined],
  ['a number', () => 42],
  ['an object', () => ({ reason: 'nope' })],
  ['a symbol', () => Symbol('thrown')],
  ['a bigint', () => 7n],
  ['a null-prototype object', () => Object.create(null) as object],
  ['an Error whose message getter throws', () => Object.defineProperty(new Error('x'), 'message', { get: () => { throw new Error('getter'); } })],
  ['a cyclic object', cycleObject],
];

const BAD_COUNTS: readonly Sample[] = [
  ['0', () => 0],
  ['-1', () => -1],
  ['1.5', () => 1.5],
  ['NaN', () => Number.NaN],
  ['Infinity', () => Number.POSITIVE_INFINITY],
  ['"3"', () => '3'],
  ['null', () => null],
  ['{}', () => ({})],
  ['-Infinity', () => Number.NEGATIVE_INFINITY],
  ['5n', () => 5n],
];

const NOT_IDS: readonly Sample[] = [
  ['5', () => 5],
  ['null', () => null],
  ['undefined', () => undefined],
  ['""', () => ''],
  ['"   "', () => '   '],
  ['{}', () => ({})],
  ['[]', () => []],
  ['true', () => true],
  ['5n', () => 5n],
  ['a symbol', () => Symbol('id')],
];

const NOT_NODES: readonly Sample[] = [
  ['null', () => null],
  ['undefined', () => undefined],
  ['5', () => 5],
  ['a string', () => 'node'],
  ['{}', () => ({})],
  ['[]', () => []],
  ['{ execute: 5 }', () => ({ execute: 5 })],
  ['{ execute, executeStream: "x" }', () => ({ execute: () => 'x', executeStream: 'x' })],
  ['a symbol', () => Symbol('node')],
];

const NOT_FUNCTIONS: readonly Sample[] = [
  ['5', () => 5],
  ['a string', () => 'route'],
  ['{}', () => ({})],
  ['null', () => null],
  ['true', () => true],
  ['[]', () => []],
];

const BAD_ROUTE_MAPS: readonly Sample[] = [
  ['null', () => null],
  ['5', () => 5],
  ['[]', () => ['a']],
  ['a string', () => 'a'],
  ['{ k: 5 }', () => ({ k: 5 })],
  ['{ k: "ghost" }', () => ({ k: 'ghost' })],
  ['{ k: null }', () => ({ k: null })],
  ['{ k: {} }', () => ({ k: {} })],
];

const TOO_LARGE_TEXT = () => 'word '.repeat(16_000); // 80 KB, over the 64 KiB store.
const deepValue = (levels: number) => {
  let v: unknown = 'bottom';
  for (let i = 0; i < levels; i++) v = { next: v };
  return v;
};

type Skeleton = { graph: StateGraph<null, string>; ids: string[] };

/** A valid graph of 2–4 chained nodes to put one defect into. */
function skeleton(rng: Rng, name = `g${rng.int(1e6)}`): Skeleton {
  const ids = Array.from({ length: 2 + rng.int(3) }, (_, i) => rng.pick(['classify', 'draft', 'review', 'n', 'a.b', 'x#y']) + i);
  const graph: StateGraph<null, string> = new StateGraph({ name });
  for (const id of ids) graph.addNode(id, (_ctx: WorkflowContext, req: AgentRequest) => `${id}:${String(req.input).slice(0, 20)}`);
  graph.start(ids[0]!);
  for (let i = 1; i < ids.length; i++) graph.addEdge(ids[i - 1]!, ids[i]!);
  return { graph, ids };
}

/** Hands a deliberately wrong value to an API as if its type were right. */
const any = (value: unknown): never => value as never;

/** Runs a graph the way the case says: `run()`, or `stream()` to its last event. */
async function runOrStream(graph: { run: StateGraph['run']; stream: StateGraph['stream'] }, input: string | AgentRequest, options: RunOptions, stream: boolean): Promise<unknown> {
  if (!stream) return graph.run(input, options);
  let last: unknown;
  for await (const event of graph.stream(input, options)) last = event;
  return (last as { type: string; run?: WorkflowRun } | undefined)?.type === 'run.completed' ? (last as { run: WorkflowRun }).run : last;
}

type Made = Omit<BadCase, 'id' | 'target'> & { durableOnly?: boolean; memoryOnly?: boolean };

function graphDefinition(rng: Rng): Made {
  const expect: SwitchboardErrorCode[] = ['graph_definition'];
  const defects: Array<() => Made> = [
    () => {
      const [label, make] = rng.pick<Sample>([
        ['null', () => null],
        ['5', () => 5],
        ['a string', () => 'g'],
        ['[]', () => []],
        ['{ name: 5 }', () => ({ name: 5 })],
        ['{ name: "" }', () => ({ name: '' })],
        ['{ name: "  " }', () => ({ name: '  ' })],
        ['{ name: {} }', () => ({ name: {} })],
        ['{ strictRoutes: "yes" }', () => ({ strictRoutes: 'yes' })],
        ['{ state: 5 }', () => ({ state: 5 })],
        ['{ state: { k: 5 } }', () => ({ state: { k: 5 } })],
        ['{ maxStep: 5 } (a typo)', () => ({ maxStep: 5 })],
        ...BAD_COUNTS.map(([l, m]) => [`{ maxSteps: ${l} }`, () => ({ maxSteps: m() })] as Sample),
      ]);
      return { category: 'graph-definition', label: `new StateGraph(${label})`, expect, act: async (env) => new StateGraph(any(make())).addNode('a', () => 'x').start('a').run('x', env.options()) };
    },
    () => {
      const [label, make] = rng.pick(NOT_IDS);
      return { category: 'graph-definition', label: `addNode(${label}, fn)`, expect, act: async (env) => skeleton(rng).graph.addNode(any(make()), () => 'x').run('x', env.options()) };
    },
    () => {
      const [label, make] = rng.pick(NOT_NODES);
      return { category: 'graph-definition', label: `addNode("n", ${label})`, expect, act: async (env) => skeleton(rng).graph.addNode('extra', any(make())).run('x', env.options()) };
    },
    () => {
      const reuse = rng.pick(['duplicate', 'END', '__reserved']);
      return {
        category: 'graph-definition',
        label: `addNode with a ${reuse} id`,
        expect,
        act: async (env) => {
          const { graph, ids } = skeleton(rng);
          return graph.addNode(reuse === 'duplicate' ? ids[0]! : reuse === 'END' ? '__end__' : '__x', () => 'x').run('x', env.options());
        },
      };
    },
    () => {
      const [label, make] = rng.pick<Sample>([...NOT_IDS, ['"ghost"', () => 'ghost']]);
      return { category: 'graph-definition', label: `start(${label})`, expect, act: async (env) => skeleton(rng).graph.start(any(make())).run('x', env.options()) };
    },
    () => ({
      category: 'graph-definition',
      label: 'no start node',
      expect,
      act: async (env) => new StateGraph().addNode('a', () => 'x').addNode('b', () => 'y').addEdge('a', 'b').run('x', env.options()),
    }),
    () => {
      const side = rng.pick(['from', 'to']);
      const [label, make] = rng.pick<Sample>([['"ghost"', () => 'ghost'], ...NOT_IDS]);
      return {
        category: 'graph-definition',
        label: `addEdge with ${side} ${label}`,
        expect,
        act: async (env) => {
          const { graph, ids } = skeleton(rng);
          return (side === 'from' ? graph.addEdge(any(make()), ids[0]!) : graph.addEdge(ids[0]!, any(make()))).run('x', env.options());
        },
      };
    },
    () => {
      const [label, make] = rng.pick(NOT_FUNCTIONS);
      return {
        category: 'graph-definition',
        label: `addTransition(a, b, ${label})`,
        expect,
        act: async (env) => {
          const { graph, ids } = skeleton(rng);
          return graph.addTransition(ids[ids.length - 1]!, '__end__', any(make())).run('x', env.options());
        },
      };
    },
    () => {
      const [label, make] = rng.pick<Sample>([['undefined', () => undefined], ...NOT_FUNCTIONS]);
      return {
        category: 'graph-definition',
        label: `addConditionalEdges(a, ${label})`,
        expect,
        act: async (env) => {
          const { graph, ids } = skeleton(rng);
          return graph.addConditionalEdges(ids[0]!, any(make())).run('x', env.options());
        },
      };
    },
    () => {
      const [label, make] = rng.pick(BAD_ROUTE_MAPS);
      return {
        category: 'graph-definition',
        label: `addConditionalEdges(a, router, ${label})`,
        expect,
        act: async (env) => {
          const { graph, ids } = skeleton(rng);
          return graph.addConditionalEdges(ids[0]!, () => 'k', any(make())).run('x', env.options());
        },
      };
    },
    () => ({
      category: 'graph-definition',
      label: 'addConditionalEdges from an unknown node',
      expect,
      act: async (env) => skeleton(rng).graph.addConditionalEdges(any('ghost'), () => null).run('x', env.options()),
    }),
    () => {
      const [label, make] = rng.pick(BAD_COUNTS);
      return { category: 'graph-definition', label: `maxSteps(${label})`, expect, act: async (env) => skeleton(rng).graph.maxSteps(any(make())).run('x', env.options()) };
    },
    () => {
      const [label, make] = rng.pick<Sample>([
        ['null', () => null],
        ['5', () => 5],
        ['{ name: 5 }', () => ({ name: 5 })],
        ['{ name: "" }', () => ({ name: '' })],
        ['[]', () => []],
      ]);
      return { category: 'graph-definition', label: `new SequentialWorkflow(${label})`, expect, act: async (env) => new SequentialWorkflow(any(make())).addNode(() => 'x').run('x', env.options()) };
    },
    () => {
      const [label, make] = rng.pick(NOT_NODES);
      return { category: 'graph-definition', label: `SequentialWorkflow.addNode(${label})`, expect, act: async (env) => new SequentialWorkflow().addNode(() => 'x').addNode(any(make())).run('x', env.options()) };
    },
    () => {
      const [label, make] = rng.pick<Sample>([
        ['null', () => null],
        ['5', () => 5],
        ['{ replyKey: "" }', () => ({ replyKey: '' })],
        ['{ replyKey: 5 }', () => ({ replyKey: 5 })],
        ['{ replyKey: "__x" }', () => ({ replyKey: '__x' })],
        ['{ reason: 5 }', () => ({ reason: 5 })],
        ['{ reason: {} }', () => ({ reason: {} })],
      ]);
      return {
        category: 'graph-definition',
        label: `humanNode(${label})`,
        expect,
        act: async (env) => new StateGraph().addNode('h', humanNode(any(make()))).start('h').run('x', env.options()),
      };
    },
  ];
  return rng.pick(defects)();
}

function runInput(rng: Rng): Made {
  const expect: SwitchboardErrorCode[] = ['graph_definition'];
  if (rng.next() < 0.4) {
    const [label, make] = rng.pick<Sample>([
      ['5', () => 5],
      ['null', () => null],
      ['undefined', () => undefined],
      ['{}', () => ({})],
      ['[]', () => []],
      ['true', () => true],
      ['a symbol', () => Symbol('in')],
      ['a function', () => () => 'x'],
      ['{ input, metadata: 5 }', () => ({ input: 'x', metadata: 5 })],
      ['{ input, metadata: [] }', () => ({ input: 'x', metadata: [] })],
      ['{ input, metadata: "m" }', () => ({ input: 'x', metadata: 'm' })],
      ['{ input, metadata: a Map }', () => ({ input: 'x', metadata: new Map() })],
    ]);
    const stream = rng.next() < 0.3;
    return { category: 'run-input', label: `${stream ? 'stream' : 'run'}(${label})`, expect, act: async (env) => runOrStream(skeleton(rng).graph, any(make()), env.options(), stream) };
  }
  const [label, make] = rng.pick<Sample>([
    ['null', () => null],
    ['5', () => 5],
    ['[]', () => []],
    ...BAD_COUNTS.map(([l, m]) => [`{ maxSteps: ${l} }`, () => ({ maxSteps: m() })] as Sample),
    ['{ runId: "" }', () => ({ runId: '' })],
    ['{ runId: 7 }', () => ({ runId: 7 })],
    ['{ runId: 201 characters }', () => ({ runId: 'r'.repeat(201) })],
    ['{ state: null }', () => ({ state: null })],
    ['{ state: 5 }', () => ({ state: 5 })],
    ['{ state: [] }', () => ({ state: [] })],
    ['{ state: a Map }', () => ({ state: new Map() })],
    ['{ onEvent: "log" }', () => ({ onEvent: 'log' })],
    ['{ recorders: {} }', () => ({ recorders: {} })],
    ['{ recorders: [null] }', () => ({ recorders: [null] })],
    ['{ recorders: [{}] }', () => ({ recorders: [{}] })],
    ['{ inspect: 42 }', () => ({ inspect: 42 })],
    ['{ inspect: {} }', () => ({ inspect: {} })],
    ['{ clock: {} }', () => ({ clock: {} })],
    ['{ clock: { now: 5 } }', () => ({ clock: { now: 5 } })],
    ['{ signal: {} }', () => ({ signal: {} })],
    ['{ signal: "abort" }', () => ({ signal: 'abort' })],
    ['{ store: {} }', () => ({ store: {} })],
    ['{ store: null }', () => ({ store: null })],
    ['{ leaseMs: -1 }', () => ({ leaseMs: -1 })],
    ['{ leaseMs: 1.5 }', () => ({ leaseMs: 1.5 })],
    ['{ owner: "" }', () => ({ owner: '' })],
    ['{ owner: 5 }', () => ({ owner: 5 })],
  ]);
  return {
    category: 'run-input',
    label: `run("x", ${label})`,
    expect,
    act: async (env) => {
      const bad = make();
      return skeleton(rng).graph.run('x', bad !== null && typeof bad === 'object' && !Array.isArray(bad) ? { ...env.options(), ...(bad as object) } : any(bad));
    },
  };
}

function nodeResult(rng: Rng): Made {
  const [label, make] = rng.pick(BAD_RESULTS);
  const shape = rng.pick(['sync function', 'async function', 'execute()', 'executeStream() in stream()', 'execute() in stream()'] as const);
  const stream = shape.endsWith('in stream()');
  const node = (): unknown => {
    const value = make();
    switch (shape) {
      case 'sync function':
        return () => value;
      case 'async function':
        return async () => value;
      case 'execute()':
      case 'execute() in stream()':
        return { execute: () => value };
      default:
        return { execute: () => 'fine', executeStream: async (_c: unknown, _r: unknown, emit: (e: object) => void) => (emit({ type: 'token', text: 't' }), value) };
    }
  };
  return {
    category: 'node-result',
    label: `${shape} returns ${label}`,
    expect: ['invalid_node_result'],
    act: async (env) => {
      const { graph, ids } = skeleton(rng);
      graph.addNode('bad', any(node())).addEdge(ids[ids.length - 1]!, 'bad').addNode('after', () => 'after').addEdge('bad', 'after');
      return runOrStream(graph, 'x', env.options(), stream);
    },
  };
}

const throwOrReject = (mode: 'throws' | 'rejects', thrown: () => unknown) =>
  mode === 'throws'
    ? () => {
        throw thrown();
      }
    : () => Promise.reject(thrown());

function callback(rng: Rng): Made {
  const mode = rng.pick(['throws', 'rejects'] as const);
  const [thrownLabel, thrown] = rng.pick(THROWN);
  const kind = rng.pick(['router', 'condition', 'node', 'recorder', 'onEvent', 'inspect', 'clock', 'reason', 'once', 'emit', 'report', 'router-value'] as const);
  switch (kind) {
    case 'router':
    case 'condition':
      return {
        category: 'callback',
        label: `a ${kind} that ${mode} ${thrownLabel}`,
        expect: ['route_failed'],
        act: async (env) => {
          const { graph, ids } = skeleton(rng);
          if (kind === 'router') graph.addConditionalEdges(ids[0]!, any(throwOrReject(mode, thrown)));
          // On the last node, which has no other way out, so the condition is called.
          else graph.addTransition(ids[ids.length - 1]!, '__end__', any(throwOrReject(mode, thrown)));
          return graph.run('x', env.options());
        },
      };
    case 'router-value': {
      const [label, make] = rng.pick<Sample>([
        ['5', () => 5],
        ['{}', () => ({})],
        ['true', () => true],
        ['a symbol', () => Symbol('r')],
        ['[]', () => ['a']],
        ['"ghost"', () => 'ghost'],
        ['a thenable', () => ({ then: (_: unknown, reject: (e: unknown) => void) => reject(new Error('thenable')) })],
      ]);
      return {
        category: 'callback',
        label: `a router that returns ${label}`,
        expect: label === '"ghost"' ? ['node_not_found'] : ['route_failed'],
        act: async (env) => {
          const { graph, ids } = skeleton(rng);
          return graph.addConditionalEdges(ids[0]!, any(() => make())).run('x', env.options());
        },
      };
    }
    case 'node':
    case 'once':
      return {
        category: 'callback',
        label: kind === 'node' ? `a node that ${mode} ${thrownLabel}` : `a ctx.once effect that ${mode} ${thrownLabel}`,
        expect: ['node_failed'],
        act: async (env) => {
          const { graph, ids } = skeleton(rng);
          const fail = throwOrReject(mode, thrown);
          graph.addNode('bad', kind === 'node' ? any(fail) : async (ctx: WorkflowContext) => ctx.once('charge', fail as () => never)).addEdge(ids[ids.length - 1]!, 'bad');
          return graph.run('x', env.options());
        },
      };
    case 'emit':
    case 'report': {
      const [label, make] = rng.pick<Sample>([
        ['null', () => null],
        ['5', () => 5],
        ['{}', () => ({})],
        ['{ type: 5 }', () => ({ type: 5 })],
        ['a string', () => 'token'],
      ]);
      return {
        category: 'callback',
        label: `a node that ${kind === 'emit' ? 'emits' : 'reports'} ${label}`,
        expect: ['invalid_node_result'],
        act: async (env) => {
          const { graph, ids } = skeleton(rng);
          const node =
            kind === 'emit'
              ? { execute: () => 'x', executeStream: async (_c: unknown, _r: unknown, emit: (e: unknown) => void) => (emit(make()), 'x') }
              : (ctx: WorkflowContext) => (ctx.report(any(make())), 'x');
          graph.addNode('bad', any(node)).addEdge(ids[ids.length - 1]!, 'bad');
          // Events are reported only while someone listens.
          return runOrStream(graph, 'x', env.options({ recorders: [new MemoryRecorder()] }), kind === 'emit');
        },
      };
    }
    case 'clock': {
      const [label, make] = rng.pick<Sample>([
        ['throws', () => throwOrReject('throws', thrown)],
        ['returns NaN', () => () => Number.NaN],
        ['returns a string', () => () => 'now'],
        ['returns Infinity', () => () => Number.POSITIVE_INFINITY],
        ['returns undefined', () => () => undefined],
      ]);
      return {
        category: 'callback',
        label: `a clock whose now() ${label}`,
        expect: ['callback_failed'],
        act: async (env) => skeleton(rng).graph.run('x', env.options({ clock: { now: any(make()) }, recorders: [new MemoryRecorder()] })),
      };
    }
    case 'reason': {
      const [label, make] = rng.pick<Sample>([
        [`${mode} ${thrownLabel}`, () => throwOrReject(mode, thrown)],
        ['returns 5', () => () => 5],
        ['returns {}', () => () => ({})],
        ['returns undefined', () => () => undefined],
      ]);
      return {
        category: 'callback',
        label: `a human node's reason that ${label}`,
        expect: ['callback_failed'],
        act: async (env) => {
          const { graph, ids } = skeleton(rng);
          graph.addNode('human', humanNode({ reason: any(make()) })).addEdge(ids[ids.length - 1]!, 'human');
          return graph.run('x', env.options());
        },
      };
    }
    default: {
      const observer = throwOrReject(mode, thrown);
      const extra: RunOptions =
        kind === 'recorder' ? { recorders: [new MemoryRecorder(), { record: any(observer) }] } : kind === 'onEvent' ? { onEvent: any(observer) } : { inspect: any(observer) };
      return {
        category: 'callback',
        label: `${kind === 'inspect' ? 'an inspect observer' : kind === 'recorder' ? 'a recorder' : 'an onEvent listener'} that ${mode} ${thrownLabel}`,
        expect: ['callback_failed'],
        act: async (env) => {
          const run = (await skeleton(rng).graph.run('x', env.options(extra))) as WorkflowRun;
          // A rejection is seen a few turns after the call; the run may end first with a short graph.
          if (mode === 'rejects' && run.callbackErrors === undefined) await new Promise((resolve) => setImmediate(resolve));
          return run;
        },
      };
    }
  }
}

function stateValue(rng: Rng): Made {
  const where = rng.pick(['ctx.put', 'RunOptions.state', 'a reducer', 'nested in ctx.put', 'rawResponse', 'run input'] as const);
  const stateOnly = where === 'ctx.put' || where === 'nested in ctx.put' || where === 'RunOptions.state';
  const [label, make] = rng.pick(stateOnly ? [...NOT_JSON, ...STATE_ONLY_BAD] : NOT_JSON);
  const viaStore = where === 'rawResponse' || where === 'run input';
  return {
    category: 'state-value',
    label: `${label} in ${where}`,
    expect: viaStore ? ['not_json'] : ['state_not_json'],
    durableOnly: viaStore,
    act: async (env) => {
      const { graph, ids } = skeleton(rng);
      const last = ids[ids.length - 1]!;
      switch (where) {
        case 'RunOptions.state':
          return graph.run('x', env.options({ state: { seeded: make() } }));
        case 'run input':
          return graph.run({ input: { payload: make() } }, env.options());
        case 'rawResponse':
          graph.addNode('bad', () => ({ outputText: 'x', rawResponse: { body: make() } })).addEdge(last, 'bad');
          return graph.run('x', env.options());
        case 'a reducer': {
          const typed = new StateGraph({ name: `typed${rng.int(1e6)}`, state: { total: z.any() } });
          typed.addNode('a', (ctx) => (ctx.put('total', make()), 'x')).start('a');
          return typed.run('x', env.options());
        }
        default:
          graph.addNode('bad', (ctx: WorkflowContext) => (ctx.put('value', where === 'ctx.put' ? make() : { order: { lines: [make()] } }), 'x')).addEdge(last, 'bad');
          return graph.run('x', env.options());
      }
    },
  };
}

function hugeValue(rng: Rng): Made {
  const where = rng.pick(['ctx.put', 'rawResponse', 'run input', 'human reply', 'deep rawResponse', 'deep ctx.put'] as const);
  return {
    category: 'huge-value',
    label: `${where.startsWith('deep') ? 'a value nested 5,000 levels' : 'an 80 KB value (limit 64 KiB)'} in ${where.replace('deep ', '')}`,
    expect: where === 'deep ctx.put' ? ['state_not_json'] : ['value_too_large'],
    durableOnly: true,
    act: async (env) => {
      const options = env.options({ store: env.smallStore! });
      const { graph, ids } = skeleton(rng);
      const last = ids[ids.length - 1]!;
      switch (where) {
        case 'ctx.put':
          graph.addNode('big', (ctx: WorkflowContext) => (ctx.put('document', TOO_LARGE_TEXT()), 'x')).addEdge(last, 'big');
          return graph.run('x', options);
        case 'deep ctx.put':
          graph.addNode('big', (ctx: WorkflowContext) => (ctx.put('tree', deepValue(5000)), 'x')).addEdge(last, 'big');
          return graph.run('x', options);
        case 'rawResponse':
        case 'deep rawResponse':
          graph.addNode('big', () => ({ outputText: 'x', rawResponse: where === 'rawResponse' ? TOO_LARGE_TEXT() : deepValue(5000) })).addEdge(last, 'big');
          return graph.run('x', options);
        case 'run input':
          return graph.run(TOO_LARGE_TEXT(), options);
        default: {
          graph.addNode('human', humanNode()).addEdge(last, 'human').addNode('after', () => 'done').addEdge('human', 'after');
          const waiting = (await graph.run('x', options)) as WorkflowRun;
          if (waiting.status !== 'waiting') return waiting;
          return resumeRun(graph, waiting.runId, { reply: TOO_LARGE_TEXT() }, options as never);
        }
      }
    },
  };
}

function storeCall(rng: Rng): Made {
  const runId = `direct-${rng.int(1e9)}`;
  const fresh = (store: RunStore) => store.insertRun({ runId, graphName: 'g', graphHash: 'h', status: 'running', owner: null, leaseExpiresAt: null, snapshot: { n: 1 } });
  const calls: Array<[string, SwitchboardErrorCode, (store: RunStore, small: RunStore) => Promise<unknown>]> = [
    ['updateRun with outputText {}', 'store_encoding', async (s) => (await fresh(s), s.updateRun(runId, 1, any({ outputText: { a: 1 } })))],
    ['updateRun with status "done"', 'store_encoding', async (s) => (await fresh(s), s.updateRun(runId, 1, any({ status: 'done' })))],
    ['updateRun with an unknown field', 'store_encoding', async (s) => (await fresh(s), s.updateRun(runId, 1, any({ colour: 'red' })))],
    ['updateRun with lastSeq -1', 'store_encoding', async (s) => (await fresh(s), s.updateRun(runId, 1, { lastSeq: -1 }))],
    ['updateRun with events "x"', 'store_encoding', async (s) => (await fresh(s), s.updateRun(runId, 1, {}, any('x')))],
    ['updateRun with an event of seq 0', 'store_encoding', async (s) => (await fresh(s), s.updateRun(runId, 1, {}, [{ runId, seq: 0, type: 'x', at: 1, data: {} }]))],
    ['insertRun with runId ""', 'store_encoding', async (s) => s.insertRun({ runId: '', graphName: 'g', graphHash: 'h', status: 'running', owner: null, leaseExpiresAt: null })],
    ['insertRun with status 5', 'store_encoding', async (s) => s.insertRun(any({ runId, graphName: 'g', graphHash: 'h', status: 5, owner: null, leaseExpiresAt: null }))],
    ['insertRun twice', 'run_conflict', async (s) => (await fresh(s), fresh(s))],
    ['putJournal at step -1', 'store_encoding', async (s) => s.putJournal(runId, -1, 'k', 1)],
    ['putJournal with an 80 KB value', 'value_too_large', async (_s, small) => small.putJournal(runId, 1, 'k', TOO_LARGE_TEXT())],
    ...NOT_JSON.filter(([l]) => !['a Promise'].includes(l)).map(
      ([label, make]) => [`a snapshot holding ${label}`, 'not_json', async (s: RunStore) => (await fresh(s), s.updateRun(runId, 1, { snapshot: { state: { v: make() } } }))] as [string, SwitchboardErrorCode, (s: RunStore, small: RunStore) => Promise<unknown>],
    ),
    ['an event holding a bigint', 'not_json', async (s) => (await fresh(s), s.updateRun(runId, 1, {}, [{ runId, seq: 1, type: 'x', at: 1, data: { n: 5n } }]))],
    ['a snapshot over the limit', 'value_too_large', async (_s, small) => (await fresh(small), small.updateRun(runId, 1, { snapshot: { text: TOO_LARGE_TEXT() } }))],
    ['a snapshot nested 5,000 levels', 'value_too_large', async (s) => (await fresh(s), s.updateRun(runId, 1, { snapshot: deepValue(5000) }))],
  ];
  const [label, code, call] = rng.pick(calls);
  return { category: 'store-call', label: `store.${label}`, expect: [code], durableOnly: true, act: async (env) => call(env.store!, env.smallStore!) };
}

function resume(rng: Rng): Made {
  const problem = rng.pick(['reply 5', 'reply null', 'no reply object', 'a reply that is a number field', 'an unknown run', 'a finished run', 'a waiting run without a reply', 'another graph'] as const);
  const expect: SwitchboardErrorCode[] =
    problem === 'an unknown run'
      ? ['run_not_found']
      : problem === 'a finished run'
        ? ['run_finished']
        : problem === 'a waiting run without a reply'
          ? ['run_not_waiting']
          : problem === 'another graph'
            ? ['graph_changed']
            : ['invalid_reply'];
  return {
    category: 'resume',
    label: `resumeRun with ${problem}`,
    expect,
    act: async (env) => {
      const { graph, ids } = skeleton(rng, 'resumable');
      graph.addNode('human', humanNode()).addEdge(ids[ids.length - 1]!, 'human');
      const options = env.options();
      const waiting = (await graph.run('x', options)) as WorkflowRun;
      const resumeOptions = (env.store === undefined ? {} : { store: env.store }) as never;
      switch (problem) {
        case 'reply 5':
          return resumeRun(graph, waiting.runId, any(5), resumeOptions);
        case 'reply null':
          return resumeRun(graph, waiting.runId, any(null), resumeOptions);
        case 'no reply object':
          return resumeRun(graph, waiting.runId, any({}), resumeOptions);
        case 'a reply that is a number field':
          return resumeRun(graph, waiting.runId, any({ reply: 5 }), resumeOptions);
        case 'an unknown run':
          return resumeRun(graph, `missing-${rng.int(1e9)}`, { reply: 'ok' }, resumeOptions);
        case 'a finished run':
          await resumeRun(graph, waiting.runId, { reply: 'ok' }, resumeOptions);
          return resumeRun(graph, waiting.runId, { reply: 'again' }, resumeOptions);
        case 'a waiting run without a reply':
          return resumeRun(graph, waiting.runId, undefined, resumeOptions);
        default: {
          const other = new StateGraph({ name: 'resumable' }).addNode('other', humanNode()).start('other');
          return resumeRun(other, waiting.runId, { reply: 'ok' }, resumeOptions);
        }
      }
    },
  };
}

const MAKERS: Record<Category, (rng: Rng) => Made> = {
  'graph-definition': graphDefinition,
  'run-input': runInput,
  'node-result': nodeResult,
  callback,
  'state-value': stateValue,
  'huge-value': hugeValue,
  'store-call': storeCall,
  resume,
};

/**
 * `count` bad inputs from `seed`, spread over every category; about half run without a store,
 * the rest in SQLite, one in ten durable ones in PostgreSQL. Cases that only make sense with a
 * store (values a store must refuse) never run without one.
 */
export function generateBadCases(count: number, seed: number): BadCase[] {
  const rng = seeded(seed);
  const cases: BadCase[] = [];
  for (let id = 0; id < count; id++) {
    const category = CATEGORIES[id % CATEGORIES.length]!;
    const made = MAKERS[category](rng);
    const roll = rng.next();
    let target: Target = roll < 0.5 ? 'memory' : roll < 0.9 ? 'sqlite' : 'postgres';
    if (made.durableOnly === true && target === 'memory') target = rng.next() < 0.85 ? 'sqlite' : 'postgres';
    const { durableOnly: _d, memoryOnly: _m, ...rest } = made;
    cases.push({ ...rest, id, target });
  }
  return cases;
}

/** How a case ended. */
export type Outcome =
  | { kind: 'rejected'; code: string }
  | { kind: 'wrong-code'; code: string }
  | { kind: 'untyped'; error: string }
  | { kind: 'silent'; detail: string }
  | { kind: 'hang' };

/** Classifies what a case's `act` gave: a typed error with an expected code, or one of the failures. */
export function classify(bad: BadCase, result: { value: unknown } | { error: unknown }, known: ReadonlySet<string>): Outcome {
  let error: unknown;
  if ('error' in result) error = result.error;
  else {
    const run = result.value as Partial<WorkflowRun> | undefined;
    if (run?.status === 'cancelled') return { kind: 'hang' };
    if (run?.status === 'failed') error = run.error;
    else if (run?.callbackErrors !== undefined && run.callbackErrors.length > 0) error = run.callbackErrors[0];
    else return { kind: 'silent', detail: run?.status === undefined ? 'resolved without an error' : `run ${run.status}` };
  }
  if (!(error instanceof SwitchboardError) || !known.has(error.code)) {
    const e = error as { name?: unknown; message?: unknown; code?: unknown } | undefined;
    return { kind: 'untyped', error: `${String(e?.name)} ${String(e?.code)}: ${String(e?.message)}` };
  }
  return bad.expect.includes(error.code) ? { kind: 'rejected', code: error.code } : { kind: 'wrong-code', code: `${error.code}: ${error.message}` };
}
