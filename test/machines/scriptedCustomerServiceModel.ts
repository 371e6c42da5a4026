import type { FakeAnswer } from '../../src/testing/index.js';

type Message = { role: string; content?: unknown; tool_calls?: unknown[] };

const text = (content: unknown): string =>
  typeof content === 'string'
    ? content
    : Array.isArray(content)
      ? content.map((part: { type?: string; text?: string }) => (part.type === 'text' ? (part.text ?? '') : '')).join('')
      : '';
const hasImage = (content: unknown) => Array.isArray(content) && content.some((part: { type?: string }) => part.type === 'image_url');

/** The classifier's scripted answers: the first matching phrase decides. */
const ROUTES: Array<[RegExp, object]> = [
  [/disagree|someone needs to/i, { route: 'human', confidence: 0.95 }],
  [/policy.*SO\d{8}.*sales report/i, { route: 'multi', confidence: 0.9 }],
  [/sales report/i, { route: 'report', confidence: 0.9, period: '2026-09' }],
  [/SO\d{8}/, { route: 'tool', confidence: 0.9 }],
  [/return policy|E02|fix it/i, { route: 'rag', confidence: 0.9 }],
  [/^hello/i, { route: 'general', confidence: 0.95 }],
];

/**
 * A stand-in for an LLM behind the fake OpenAI-compatible server: each turn is scripted per agent
 * (recognized by its system prompt) and per step of its conversation, the way the real model would
 * answer. Requests from specialists running in parallel arrive interleaved, so turns are chosen by
 * content rather than by arrival order.
 */
export function scriptedTurn(body: Record<string, unknown>): FakeAnswer {
  const messages = (body.messages ?? []) as Message[];
  const system = text(messages[0]?.content);
  const user = messages.filter((m) => m.role === 'user').map((m) => text(m.content)).join('\n');
  const toolMessages = messages.filter((m) => m.role === 'tool').map((m) => text(m.content));

  if (system.startsWith('You route customer-service requests')) {
    const route = ROUTES.find(([pattern]) => pattern.test(user))?.[1] ?? { route: 'general', confidence: 0.3 };
    const orderId = /SO\d{8}/.exec(user)?.[0];
    return { text: JSON.stringify({ ...route, ...(orderId ? { orderId } : {}) }) };
  }
  if (system.startsWith('You read photos')) {
    if (!messages.some((m) => hasImage(m.content))) throw new Error('the vision turn carries no image');
    return { text: 'LED fault code E02: red blinking on the charging case.' };
  }
  if (system.startsWith('You answer customer questions about Aero products')) {
    const passage = /\[(KB\d{3})\] [^:]+: ([^\n]+)/.exec(user);
    return { text: passage ? `${passage[2]} [${passage[1]}]` : 'No passage answers this question.' };
  }
  if (system.startsWith('You handle order questions')) {
    const orderId = /SO\d{8}/.exec(user)?.[0] ?? 'SO00000000';
    const lookedUp = /lookup_order [^\n]*→ ok/.test(user);
    const refund = /calculate_refund [^\n]*→ ok (\{[^\n]+\})/.exec(user);
    if (refund) {
      const estimate = JSON.parse(refund[1]!) as { refund: number; product: string };
      return { text: `You can get about ${estimate.refund.toFixed(2)} CNY back for your ${estimate.product}. This is an estimate.` };
    }
    return { toolCalls: [{ name: lookedUp ? 'calculate_refund' : 'lookup_order', arguments: { orderId } }] };
  }
  if (system.startsWith('You answer questions about the monthly sales report')) {
    const result = toolMessages.at(-1);
    if (result === undefined) return { toolCalls: [{ name: 'query_sales_report', arguments: { period: '2026-09' } }] };
    const r = (JSON.parse(result) as { output?: Record<string, number> }).output ?? (JSON.parse(result) as Record<string, number>);
    return {
      text: `In September 2026 revenue was ${r.revenue!.toLocaleString('en-US')} on ${r.orders!.toLocaleString('en-US')} orders, up ${r.revenueGrowthPercent!.toFixed(2)}% on August.`,
    };
  }
  if (system.startsWith('You are the customer-service assistant')) return { text: 'Hello! I can help with returns, fault codes, refunds and the sales report.' };
  throw new Error(`no scripted turn for the agent whose prompt starts "${system.slice(0, 60)}"`);
}
