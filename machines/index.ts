import type { Scenario, Workflow } from 'switchboard';
import { refundApproval } from './refundApproval.js';

/** The graphs the `switchboard` command can start, resume and recover, by name. */
export const graphs: Workflow[] = [refundApproval()];

/** The canned requests the workbench (`switchboard serve`) offers as buttons. */
export const scenarios: Scenario[] = [
  { id: 'refund-approval', title: 'Refund SO20261001 (needs approval)', message: 'Please refund order SO20261001', graph: 'refund-approval' },
];
