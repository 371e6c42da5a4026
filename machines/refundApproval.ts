import { StateGraph, humanNode } from 'switchboard/engine';

/**
 * A small human-in-the-loop graph: it drafts a refund, waits for a person to approve it (the run is
 * stored and may wait for hours, across restarts), then finishes with the reply.
 */
export function refundApproval(): StateGraph {
  return new StateGraph({ name: 'refund-approval' })
    .addNode('draft', (ctx, request) => {
      const order = /SO\d{8}/.exec(String(request.input))?.[0] ?? 'unknown order';
      ctx.put('order', order);
      return `Refund request for ${order}`;
    })
    .addNode('approve', humanNode({ reason: (ctx) => `approve the refund for ${String(ctx.get('order'))}` }))
    .addNode('finish', (ctx) => `Refund for ${String(ctx.get('order'))}: ${String(ctx.get('humanReply'))}`)
    .start('draft')
    .addEdge('draft', 'approve')
    .addEdge('approve', 'finish');
}
