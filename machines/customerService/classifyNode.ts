import { Agent, AgentNode as AgentNodeOf, type AgentNode, type Clock, type ModelClient } from 'switchboard/engine';
import { QUESTION_KEY } from '../../specialists/shared/questionOf.js';
import { Classification } from './Classification.js';
import { classifyOffline } from './classifyOffline.js';
import { settleClassification } from './settleClassification.js';

/** The classifier's system prompt. */
export const CLASSIFIER_INSTRUCTIONS = `You route customer-service requests for an electronics shop (Aero headphones, earbuds, speakers).
Answer with one JSON object and nothing else:
{"route": R, "confidence": C, "orderId"?: "SO########", "period"?: "YYYY-MM", "faultCode"?: "E##", "tasks"?: [{"kind": K, "input": "..."}]}.
R is one of: "rag" (policy questions: returns, refunds in general, warranty, shipping, invoices, LED fault codes and how to fix them),
"tool" (one of the customer's own orders: status, refund amount, cancellation; also when they ask about their order without its number;
not a dispute of a charge or refund),
"report" (the monthly sales report), "multi" (several of rag/tool/report at once: then list one task per kind in "tasks", K being
"rag", "tool", "report", or "human" for a part a person must handle beside the others, and input the part of the message for it),
"human" (a dispute of a charge or refund — charged twice, fraud, a chargeback — also when it names an order; a complaint; an explicit request for a person),
"general" (greetings, thanks and small talk). C is your confidence from 0 to 1. Write order numbers as SO followed by 8 digits,
periods as YYYY-MM (relative months such as "last month" count from today, {today}), fault codes as E01–E04 (amber blinking E01,
red blinking E02, blue fast blinking E03, solid red E04).`;

/** Options for {@link classifyNode}. */
export interface ClassifyNodeOptions {
  /** Relative months ("last month") are read against this clock (default: the system clock). */
  clock?: Clock;
}

/**
 * `classify`: an agent that yields `{ route, confidence, orderId?, period?, faultCode?, tasks? }`
 * (stored under `classification`, with `orderId`, `period` and `faultCode` as hints for the
 * specialists). Offline, the understanding learned from the labelled training messages answers. A
 * reply that is not valid JSON of that shape counts as confidence 0, so the request goes to a
 * person; a `multi` reply that cannot be split goes to its strongest single intent.
 */
export function classifyNode(model: ModelClient, options: ClassifyNodeOptions = {}): AgentNode {
  const clock = options.clock ?? { now: () => Date.now() };
  return {
    name: 'classify',
    async execute(ctx, request) {
      const text = typeof request.input === 'string' ? request.input : String(ctx.get(QUESTION_KEY) ?? '');
      const now = clock.now();
      const agent = new Agent({
        name: 'classifier',
        instructions: CLASSIFIER_INSTRUCTIONS.replace('{today}', new Date(now).toISOString().slice(0, 10)),
        model,
        offline: ({ input }) => JSON.stringify(classifyOffline(input, now)),
      });
      const result = await new AgentNodeOf(agent).execute(ctx, { input: text });
      const parsed = parseClassification(result?.outputText ?? '');
      const classification = parsed.confidence === 0 ? parsed : settleClassification(parsed, text, now);
      ctx.put('classification', classification);
      if (classification.orderId) ctx.put('orderId', classification.orderId);
      if (classification.period) ctx.put('period', classification.period);
      if (classification.faultCode) ctx.put('faultCode', classification.faultCode);
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
