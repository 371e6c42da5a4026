/**
 * A loop with a fuse: a reviewer sends a draft back until it is good enough, and `maxSteps` stops a
 * loop that would never end. The first run converges; the second never would and ends `max-steps`.
 * Run: npx tsx examples/03-loop-with-fuse.ts
 */
import { StateGraph } from 'switchboard';

function reviseLoop(passAt: number, maxSteps: number): StateGraph {
  return new StateGraph({ name: 'revise-loop', maxSteps })
    .addNode('draft', (ctx) => {
      const round = (ctx.get<number>('round') ?? 0) + 1;
      ctx.put('round', round);
      return `draft v${round}`;
    })
    .addNode('review', (ctx, request) => {
      ctx.put('approved', (ctx.get<number>('round') ?? 0) >= passAt);
      return String(request.input); // pass the draft through unchanged
    })
    .start('draft')
    .addEdge('draft', 'review')
    .addTransition('review', 'draft', (ctx) => ctx.get<boolean>('approved') !== true);
}

for (const [label, graph] of [
  ['converges after 3 rounds', reviseLoop(3, 32)],
  ['never approves (fuse at 7 steps)', reviseLoop(Number.POSITIVE_INFINITY, 7)],
] as const) {
  const run = await graph.run('write a reply');
  console.log(`${label}\n  status: ${run.status}\n  steps:  ${run.steps}\n  path:   ${run.path.join(' → ')}\n  output: ${run.outputText}`);
}
