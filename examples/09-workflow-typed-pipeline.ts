/**
 * A typed pipeline: each step's output type must fit the next step's input, checked in the editor
 * (generics) and, for steps with zod schemas, from the plain-data graph (assertTypeCompatible).
 * Run: npx tsx examples/09-workflow-typed-pipeline.ts
 */
import { z } from 'zod';
import { TypeIncompatibleError, Workflow, assertTypeCompatible, step } from 'switchboard';

const parse = step('parse', (_ctx, csv: string) => csv.split(',').map(Number), { input: z.string(), output: z.array(z.number()) });
const total = step('total', (_ctx, xs: number[]) => xs.reduce((a, b) => a + b, 0), { input: z.array(z.number()), output: z.number() });
const format = step('format', (_ctx, n: number) => `total: ${n}`, { input: z.number(), output: z.string() });

const pipeline = Workflow.define<string>('sum').step(parse).then(total).then(format);
assertTypeCompatible(pipeline.compile());
console.log((await pipeline.run('1,2,3')).output);

// In the editor: `.then(total)` after `format` does not compile (a string is not a number[]).
// @ts-expect-error format outputs a string; total expects number[]
Workflow.define<string>('wrong').step(parse).then(total).then(format).then(total);

// From the graph (e.g. in CI), for a pipeline assembled without the generics' help:
const loose = Workflow.define<string>('loose').step(parse).then(format as never);
try {
  assertTypeCompatible(loose.compile());
} catch (error) {
  if (error instanceof TypeIncompatibleError) console.log(error.message);
}
