import type { Workflow } from 'switchboard';
import { customerService } from './customerService.js';
import { refundApproval } from './refundApproval.js';

/** The graphs the `switchboard` command can start, resume and recover, by name. The first is the default. */
export const graphs: Workflow[] = [customerService(), refundApproval()];

export { scenarios, scenarioMetadata, scenarioImagePath, type DemoScenario } from './scenarios.js';
