import { Agent, AgentNode as AgentNodeOf, lazyNode, type AgentNode, type ModelClient, type TaskResult } from 'switchboard/engine';
import { QUESTION_KEY } from '../../specialists/shared/questionOf.js';
import type { Classification } from './Classification.js';
import { PERSON_PART_KEY, PersonPart } from './PersonPart.js';

const GENERAL = `You are the customer-service assistant of an electronics shop. Answer small talk briefly and say what you can help with:
return and warranty policy, fault codes, order refunds, and the monthly sales report. Do not call tools.`;

const SECTION: Record<string, string> = { rag: 'Policy', tool: 'Your order', report: 'Sales report', human: 'For a person' };

/**
 * `draft`: writes the answer from what the route produced — a cited policy answer from the
 * retrieved passages (`rag`), the report or order answer, the specialists' answers in task order
 * (`multi`), or a short reply with no tool (`general`). Stores it under `draft`.
 */
export function draftNode(model: ModelClient): AgentNode {
  // The policy writer's modules load on the first policy answer.
  const policy = lazyNode('draft', async () => (await import('../../specialists/policy/policyDraftNode.js')).policyDraftNode({ model }));
  const general = new AgentNodeOf(
    new Agent({
      name: 'general',
      instructions: GENERAL,
      model,
      offline: ({ input }) =>
        `${/\b(thank|thanks|thx|ty|cheers|appreciate)/i.test(input) ? "You're welcome!" : 'Hello!'} I can help with return and warranty questions, ` +
        'LED fault codes, refunds and the status of your orders, and the monthly sales report. What do you need?',
    }),
  );
  return {
    name: 'draft',
    async execute(ctx, request) {
      const route = ctx.get<Classification>('classification')?.route ?? 'general';
      if (route === 'rag') return policy.execute(ctx, request);
      let draft: string;
      if (route === 'report') draft = ctx.get<string>('reportAnswer') ?? 'The sales report is not available.';
      else if (route === 'tool') draft = ctx.get<string>('toolAnswer') ?? 'I could not look that order up.';
      else if (route === 'multi') {
        const results = ctx.get<TaskResult[]>('specialistResults') ?? [];
        // Tasks a person takes over are named, so the customer knows the rest is not forgotten.
        const toPerson = new Set((PersonPart.safeParse(ctx.get(PERSON_PART_KEY)).data ?? []).map((p) => p.input));
        draft = results
          .map((r) => `${SECTION[r.kind] ?? r.kind}: ${toPerson.has(r.input) ? `a person from our team takes this over and replies here ("${r.input}").` : (r.outputText ?? '(no answer)')}`)
          .join('\n\n');
      } else {
        const reply = await general.execute(ctx, { input: ctx.get<string>(QUESTION_KEY) ?? String(request.input) });
        draft = reply?.outputText ?? '';
      }
      const rounds = (ctx.get<number>('draftRounds') ?? 0) + 1;
      if (rounds > 1) draft = `${draft}\n\n(Revised after review.)`;
      ctx.put('draft', draft);
      ctx.put('draftRounds', rounds);
      return draft;
    },
  };
}
