import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SqliteRunStore, Workflow, step, type WorkflowResult } from 'switchboard';

class Money {
  constructor(readonly cents: number) {}
}

const store = new SqliteRunStore({ file: join(mkdtempSync(join(tmpdir(), 'sb-wf-json-')), 'runs.db') });
afterAll(() => store.close());

/** The run in memory and stored, compared on what a caller sees. */
async function both<I, O>(wf: Workflow<I, O>, input: I): Promise<{ memory: WorkflowResult<O>; stored: WorkflowResult<O> }> {
  const memory = await wf.run(input);
  const stored = await wf.run(input, { store });
  const seen = (r: WorkflowResult<O>) => ({ status: r.status, output: r.output, path: r.path, error: r.error === undefined ? null : { code: r.error.code, message: r.error.message } });
  expect(seen(stored)).toEqual(seen(memory));
  return { memory, stored };
}

const cycle = () => {
  const o: Record<string, unknown> = { a: 1 };
  o.self = o;
  return o;
};

describe("a step's output is checked as JSON when the step ends, in memory as in a stored run", () => {
  const cases: Array<[string, () => unknown, string]> = [
    ['a Date in an object', () => ({ when: new Date(0) }), 'output.when holds a Date'],
    ['a Map', () => new Map([['a', 1]]), 'output holds a Map'],
    ['a class instance in an array', () => [1, { price: new Money(5) }], 'output[1].price holds a Money'],
    ['NaN', () => ({ score: Number.NaN }), 'output.score holds NaN'],
    ['a bigint', () => 10n, 'output holds a bigint'],
    ['a function', () => ({ later: () => 1 }), 'output.later holds a function'],
    ['a cycle', cycle, 'output.self refers back to itself (a cycle)'],
  ];
  for (const [what, make, where] of cases) {
    it(`fails the step that returns ${what}, naming the step and the path, before the next step runs`, async () => {
      const ran: string[] = [];
      const wf = Workflow.define<number>('json-out')
        .step(step('first', (_c, n: number) => n))
        .then(step('make', () => make()))
        .then(step('next', (_c, v: unknown) => (ran.push('next'), typeof v)));
      const { memory } = await both(wf, 1);
      expect(memory.status).toBe('failed');
      expect(memory.error?.name).toBe('WorkflowExecutionError');
      expect(memory.error?.code).toBe('not_json');
      expect(memory.error?.message).toContain(`step "make" returned an output JSON cannot represent: ${where}`);
      expect(memory.output).toBe(1);
      expect(ran).toEqual([]);
    });
  }

  it('fails a parallel branch and a fan-out item the same way', async () => {
    const gather = Workflow.define<number>('branches').gather(step('fine', (_c, n: number) => n), step('dated', () => ({ at: new Date(0) })));
    const g = (await both(gather, 1)).memory;
    expect(g.status).toBe('failed');
    expect(g.error?.code).toBe('not_json');
    expect(g.error?.message).toContain('step "dated" returned an output JSON cannot represent: output.at holds a Date');

    const fan = Workflow.define<number[]>('items').parallel((_c, list: number[]) => list, (n: number, i: number) => step(`item-${i}`, () => (n === 2 ? new Set([n]) : n)));
    const f = (await both(fan, [1, 2])).memory;
    expect(f.status).toBe('failed');
    expect(f.error?.message).toContain('step "item-1" returned an output JSON cannot represent: output holds a Set');
  });

  it("is an error onError('not_json') can recover from, in both modes", async () => {
    const wf = Workflow.define<number>('recovers')
      .step(step('make', () => ({ when: new Date(0) })))
      .onError('not_json', step('as-text', () => 'recovered'));
    const { memory } = await both(wf, 1);
    expect(memory.status).toBe('completed');
    expect(memory.output).toBe('recovered');
  });

  it('lets JSON outputs through unchanged (undefined properties included, as a stored run keeps them)', async () => {
    const wf = Workflow.define<number>('plain').step(step('make', () => ({ a: 1, b: [true, null, 'x'], c: undefined, d: { e: -0.5 } })));
    const { memory } = await both(wf, 1);
    expect(memory.status).toBe('completed');
    expect(memory.output).toEqual({ a: 1, b: [true, null, 'x'], d: { e: -0.5 } });
  });
});
