/**
 * Typed state: the graph declares its keys with zod schemas, so `ctx.get` / `ctx.put` are typed and
 * every write is checked where it happens. The second run writes a Date, which JSON cannot hold:
 * the node fails with a StateValidationError naming the key and the node, in memory as in a stored run.
 * Run: npx tsx examples/05-typed-state.ts
 */
import { z } from 'zod';
import { END, StateGraph, withReducer } from 'switchboard';

const graph = new StateGraph({
  name: 'research',
  state: {
    topic: z.string(),
    notes: withReducer(z.array(z.string()), 'append'), // put('notes', ['one more']) appends
    draft: z.string(),
    score: z.number(),
  },
})
  .addNode('research', (ctx, request) => (ctx.put('topic', String(request.input)), ctx.put('notes', ['a source']), null))
  .addNode('write', (ctx) => (ctx.put('notes', ['a second source']), ctx.put('draft', `On ${ctx.get('topic')}: ${ctx.get('notes')?.join(', ')}`), null))
  .addNode('review', (ctx) => (ctx.put('score', ctx.get('draft')?.length ?? 0), null))
  .start('research')
  .addEdge('research', 'write')
  .addEdge('write', 'review')
  .addConditionalEdges('review', (ctx) => ((ctx.get('score') ?? 0) > 40 ? 'accept' : 'revise'), { accept: END, revise: 'write' });

const run = await graph.run('tides');
console.log(`status: ${run.status}\npath:   ${run.path.join(' → ')}\ndraft:  ${String(run.state.get('draft'))}`);

const untyped = new StateGraph({ name: 'dated' }).addNode('stamp', (ctx) => (ctx.put('dueAt', new Date(0)), null)).start('stamp');
const failed = await untyped.run('x');
console.log(`status: ${failed.status}\nerror:  ${failed.error?.code}: ${failed.error?.message}`);
