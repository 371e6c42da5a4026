import type { AgentNode } from 'switchboard/engine';

/**
 * `finish`: the answer the customer gets — the human's reply after a handoff, otherwise the
 * accepted draft. Stored under `answer`.
 */
export function finishNode(): AgentNode {
  return {
    name: 'finish',
    execute(ctx, request) {
      const reply = ctx.get<string>('humanReply');
      const answer = typeof reply === 'string' && ctx.get('lastNodeId') === 'human_handoff' ? reply : (ctx.get<string>('draft') ?? String(request.input));
      ctx.put('answer', answer);
      return answer;
    },
  };
}
