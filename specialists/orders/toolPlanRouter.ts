import type { StateRouter } from 'switchboard/engine';
import { ToolPlan } from './ToolLoopState.js';

/**
 * A router returning the last plan's action (`call`, `answer`, `ask`, `budget_spent`); use it with
 * a route map. Its own module, so a graph routes on it without loading the planner.
 */
export const toolPlanRouter: StateRouter = (ctx) => ToolPlan.safeParse(ctx.get('toolPlan')).data?.action ?? null;
