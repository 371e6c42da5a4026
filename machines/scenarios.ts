import { fileURLToPath } from 'node:url';
import type { Scenario } from 'switchboard/engine';
import type { Fault } from '../specialists/shared/Fault.js';

/** A canned request: what `switchboard scenarios` runs and the workbench offers as a button. */
export type DemoScenario = Scenario & { graph: string; faults?: Fault[] };

/** The E02 LED picture, relative to this folder (scenario images resolve against the graphs module). */
const E02_PICTURE = '../specialists/vision/fixtures/e02-red-led.png';
const RETURN_QUESTION = 'What is the return policy for Aero headphones? Can I return them unused three days after delivery?';
const REFUND_QUESTION = 'Check order SO20261001 for me and see how much can still be refunded.';

/** The eight customer-service scenarios (and the small human-approval demo). */
export const scenarios: DemoScenario[] = [
  { id: '1-policy', title: 'Return policy question', graph: 'customer-service', message: RETURN_QUESTION },
  { id: '2-vision', title: 'LED picture: what does E02 mean?', graph: 'customer-service', message: 'What does this mean and how do I fix it?', image: E02_PICTURE },
  { id: '3-report', title: 'September 2026 sales report (MCP)', graph: 'customer-service', message: 'Query the September 2026 sales report and tell me revenue and order volume.' },
  { id: '4-order', title: 'Refund estimate for SO20261001', graph: 'customer-service', message: REFUND_QUESTION },
  {
    id: '5-multi',
    title: 'Policy + refund + report (parallel specialists)',
    graph: 'customer-service',
    message: 'Explain the headphone return policy, the refundable amount for SO20261001, and the September sales report.',
  },
  {
    id: '6-human',
    title: 'Dispute → human handoff',
    graph: 'customer-service',
    message: 'I completely disagree with this compensation amount—someone needs to resolve this!',
    reply: 'I am sorry about the trouble. I have approved an extra 50 CNY voucher on top of your refund. — Mei, customer care',
  },
  { id: '7-retrieval-gap', title: 'Fault: retrieval gap → requery', graph: 'customer-service', message: RETURN_QUESTION, faults: ['retrieval_gap'] },
  { id: '8-tool-timeout', title: 'Fault: tool timeout (budget 3)', graph: 'customer-service', message: REFUND_QUESTION, faults: ['tool_timeout'], toolBudget: 3 },
  { id: '8b-tool-budget', title: 'Fault: tool timeout (budget 2 → human)', graph: 'customer-service', message: REFUND_QUESTION, faults: ['tool_timeout'], toolBudget: 2, expectedStatus: 'waiting' },
  { id: 'refund-approval', title: 'Refund SO20261001 (needs approval)', graph: 'refund-approval', message: 'Please refund order SO20261001', reply: 'approved' },
];

/** A scenario's picture as an absolute path. */
export function scenarioImagePath(s: Pick<DemoScenario, 'image'>): string | undefined {
  return s.image === undefined ? undefined : fileURLToPath(new URL(s.image, import.meta.url));
}

/** The request metadata a scenario's options become. */
export function scenarioMetadata(s: Pick<DemoScenario, 'image' | 'faults' | 'toolBudget'>): Record<string, unknown> {
  return {
    ...(s.image ? { image: { path: scenarioImagePath(s)! } } : {}),
    ...(s.faults?.length ? { faults: s.faults } : {}),
    ...(s.toolBudget !== undefined ? { toolBudget: s.toolBudget } : {}),
  };
}
