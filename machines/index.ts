import { modelsFromEnv, type RunnableGraph } from 'switchboard/engine';
import { Fault } from '../specialists/shared/Fault.js';
import { customerService } from './customerService.js';
import { refundApproval } from './refundApproval.js';

// The models the environment configures (offline alone without OPENAI_API_KEY), shared by every run of the customer-service graph.
const catalog = modelsFromEnv();

/** The graphs the `switchboard` command can start, resume and recover, by name. The first is the default. */
export const graphs: RunnableGraph[] = [customerService({ models: catalog }), refundApproval()];

/** The models a run may choose (the workbench's model select, `POST /api/runs` `model`); the first is the default. */
export const models: string[] = catalog.names;

/** The faults `--fault` and scenarios may inject into the customer-service graph (see `Fault`). */
export const faults: string[] = [...Fault.options];

export { scenarios, scenarioMetadata, scenarioImagePath, type DemoScenario } from './scenarios.js';
