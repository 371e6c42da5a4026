import { Agent, AgentNode as AgentNodeOf, type AgentNode, type ModelClient } from 'switchboard';
import { QUESTION_KEY } from '../../specialists/index.js';
import { Classification, classifyText } from './Classification.js';

const INSTRUCTIONS = `You route customer-service requests for an electronics shop (Aero headphones, earbuds, speakers).
Answer with one JSON object and nothing else: {"route": R, "confidence": C, "orderId"?: "SO########", "period"?: "YYYY-MM"}.
R is one of: "rag" (policy, returns, warranty, fault codes and how to fix them), "tool" (one order: status, refund amount),
"report" (the monthly sales report), "multi" (several of those at once), "human" (a dispute, a complaint, a request for a person),
"general" (greetings and small talk). C is your confidence from 0 to 1.`;

/**
 * `classify`: an agent that yields `{ route, confidence, orderId?, period? }` (stored under
 * `classification`, with `orderId` and `period` as hints for the specialists). A reply that is not
 * valid JSON of that shape counts as confidence 0, so the request goes to a person.
 */
export function classifyNode(model: ModelClient): AgentNode {
  const agent = new Agent({
    name: 'classifier',
    instructions: INSTRUCTIONS,
    model,
    offline: ({ input }) => JSON.stringify(classifyText(input)),
  });
  const inner = new AgentNodeOf(agent);
  return {
    name: 'classify',
    async execute(ctx, request) {
      const text = typeof request.input === 'string' ? request.input : String(ctx.get(QUESTION_KEY) ?? '');
      const result = await inner.execute(ctx, { input: text });
      const classification = parseClassification(result?.outputText ?? '');
      ctx.put('classification', classification);
      if (classification.orderId) ctx.put('orderId', classification.orderId);
      if (classification.period) ctx.put('period', classification.period);
      return null;
    },
  };
}

function parseClassification(text: string): Classification {
  const json = /\{[\s\S]*\}/.exec(text)?.[0];
  try {
    const parsed = Classification.safeParse(JSON.parse(json ?? ''));
    if (parsed.success) return parsed.data;
  } catch {
    // Not JSON: treated as an unsure answer below.
  }
  return { route: 'general', confidence: 0, reason: 'the classifier did not answer with a valid classification' };
}
