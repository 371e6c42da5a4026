import { describe, expect, it } from 'vitest';
import { GraphDefinitionError, Workflow, step } from 'switchboard';

const mark = (name: string) => step(name, (_c, s: string) => `${s}|${name}`);

describe('a workflow that contains itself as a step', () => {
  it('is refused with a GraphDefinitionError naming it, not a stack overflow (itself as its next step)', () => {
    const wf = Workflow.define<string>('outline').step(mark('draft'));
    wf.then(wf);
    expect(() => wf.compile()).toThrow(GraphDefinitionError);
    expect(() => wf.compile()).toThrow(/workflow "outline" contains itself: outline > outline/);
    expect(() => wf.run('x')).toThrow(GraphDefinitionError);
  });

  it('is refused when it is reached through another workflow, in a branch of a parallel', () => {
    const outer = Workflow.define<string>('outer').step(mark('a'));
    const inner = Workflow.define<string>('inner').step(mark('b'));
    outer.parallel(mark('spell'), inner);
    inner.then(outer);
    expect(() => outer.compile()).toThrow(/workflow "outer" contains itself: outer > inner > outer/);
  });

  it('is refused when the workflow it reaches was built before the cycle was closed (a run would nest without end)', () => {
    const parent = Workflow.define<string>('parent').step(mark('a'));
    const child = Workflow.define<string>('child').step(parent).build();
    parent.then(child);
    expect(() => parent.build()).toThrow(/workflow "parent" contains itself: parent > child > parent/);
  });

  it('a built workflow used twice, and one used in two parents, are not cycles', async () => {
    const sub = Workflow.define<string>('sub').step(mark('in')).build();
    const run = await Workflow.define<string>('twice').step(sub).then(sub).run('x');
    expect(run).toMatchObject({ status: 'completed', output: 'x|in|in' });
    const other = await Workflow.define<string>('other').step(mark('o')).then(sub).run('y');
    expect(other).toMatchObject({ status: 'completed', output: 'y|o|in' });
  });
});
