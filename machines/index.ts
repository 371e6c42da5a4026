import type { RunnableGraph } from 'switchboard/engine';
import { Fault } from '../specialists/shared/Fault.js';
import { customerService } from './customerService.js';
import { refundApproval } from './refundApproval.js';

/** The graphs the `switchboard` command can start, resume and recover, by name. The first is the default. */
export const graphs: RunnableGraph[] = [customerService(), refundApproval()];

/** The faults `--fault` and scenarios may inject into the customer-service graph (see `Fault`). */
export const faults: string[] = [...Fault.options];

export { scenarios, scenarioMetadata, scenarioImagePath, type DemoScenario } from './scenarios.js';
