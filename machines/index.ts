import type { Workflow } from 'switchboard';
import { refundApproval } from './refundApproval.js';

/** The graphs the `switchboard` command can start, resume and recover, by name. */
export const graphs: Workflow[] = [refundApproval()];
