// The keyword classifier the customer-service graph used before it learned from labelled messages,
// kept only as the benchmark's baseline.

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];

function findPeriod(text: string): string | undefined {
  const iso = /\b(20\d{2})-(0[1-9]|1[0-2])\b/.exec(text);
  if (iso) return `${iso[1]}-${iso[2]}`;
  const named = new RegExp(`\\b(${MONTHS.join('|')})\\s+(20\\d{2})\\b`, 'i').exec(text);
  if (named) return `${named[2]}-${String(MONTHS.indexOf(named[1]!.toLowerCase()) + 1).padStart(2, '0')}`;
  return undefined;
}

type Classification = { route: string; confidence: number; orderId?: string; period?: string; reason?: string };

const HUMAN = /\b(disagree|complain|complaint|unacceptable|manager|supervisor|lawyer|someone needs to|speak to a (person|human)|resolve this)\b/i;
const POLICY = /\b(polic(y|ies)|return|warranty|exchange|restocking|fault|error|E0\d|LED|blink|charg(e|ing)|fix|firmware|shipping|invoice)\b/i;
const ORDER = /\b(SO\d{8}|order|refund(able)?|refunded)\b/i;
const REPORT = /\b(sales report|revenue|order volume|sales)\b/i;
const GREETING = /^\s*(hi|hello|hey|good (morning|afternoon|evening)|thanks|thank you)\b[\s!.?]*$/i;

/**
 * The deterministic classifier used offline: a person first (disputes, complaints), then several
 * intents at once (multi), an order, the sales report, a policy question, a greeting; anything else
 * is a low-confidence general request, which goes to a person.
 */
export function keywordClassify(text: string): Classification {
  const orderId = /\bSO\d{8}\b/.exec(text)?.[0];
  const period = findPeriod(text);
  const found = { ...(orderId ? { orderId } : {}), ...(period ? { period } : {}) };
  if (HUMAN.test(text)) return { route: 'human', confidence: 0.9, ...found, reason: 'the customer asks for a person or disputes a decision' };
  const isReport = REPORT.test(text);
  const isOrder = orderId !== undefined && ORDER.test(text);
  const isPolicy = POLICY.test(text);
  if ([isReport, isOrder, isPolicy].filter(Boolean).length >= 2) return { route: 'multi', confidence: 0.85, ...found };
  if (isOrder) return { route: 'tool', confidence: 0.9, ...found };
  if (isReport) return { route: 'report', confidence: 0.9, ...found };
  if (ORDER.test(text) && /\border\b/i.test(text)) return { route: 'tool', confidence: 0.75, ...found };
  if (isPolicy) return { route: 'rag', confidence: 0.85, ...found };
  if (GREETING.test(text)) return { route: 'general', confidence: 0.95, ...found };
  return { route: 'general', confidence: 0.4, ...found, reason: 'the request matches no known topic' };
}
