import type { AgentNode } from 'switchboard/engine';
import { PERSON_PART_KEY } from './PersonPart.js';

/**
 * `finish`: the answer the customer gets — the human's reply after a handoff, otherwise the
 * accepted draft; when a person took over only part of a composite request, the accepted draft
 * followed by the person's reply. Stored under `answer`.
 */
export function finishNode(): AgentNode {
  return {
    name: 'finish',
    execute(ctx, request) {
      const reply = ctx.get<string>('humanReply');
      const draft = ctx.get<string>('draft');
      const fromPerson = typeof reply === 'string' && ctx.get('lastNodeId') === 'human_handoff';
      const partial = fromPerson && ctx.get(PERSON_PART_KEY) !== undefined && draft !== undefined;
      const answer = partial ? `${draft}\n\nFrom our team: ${reply}` : fromPerson ? reply : (draft ?? String(request.input));
      ctx.put('answer', answer);
      return answer;
    },
  };
}
