/**
 * Route, then converge: a router node records its decision in the shared state, a conditional edge
 * sends the request to the weather or the generic branch, and both end at the same final node.
 * Run: npx tsx examples/02-route-then-converge.ts
 */
import { END, StateGraph } from 'switchboard';

const graph = new StateGraph({ name: 'route-then-converge' })
  .addNode('route', (ctx, request) => {
    const text = String(request.input).toLowerCase();
    ctx.put('route', /weather|rain|sunny|forecast/.test(text) ? 'weather' : 'generic');
    return null; // keep the original request for the next node
  })
  .addNode('weather', (_ctx, request) => `Forecast for "${String(request.input)}": sunny, 24 °C.`)
  .addNode('generic', (_ctx, request) => `I can help with "${String(request.input)}".`)
  .addNode('final', (ctx, request) => `[${ctx.get<string>('route')}] ${String(request.input)}`)
  .start('route')
  .addConditionalEdges('route', (ctx) => ctx.get<string>('route'), { weather: 'weather', generic: 'generic' })
  .addEdge('weather', 'final')
  .addEdge('generic', 'final')
  .addEdge('final', END);

for (const question of ['What is the weather in Hangzhou tomorrow?', 'Reset my password']) {
  const run = await graph.run(question);
  console.log(`${question}\n  path:   ${run.path.join(' → ')}\n  route:  ${String(run.state.get('route'))}\n  answer: ${run.outputText}`);
}
