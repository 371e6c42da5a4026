import { z } from 'zod';
import { Route } from '../Classification.js';

/** How one labelled message fared through the graph. */
export const EvalCase = z.object({
  id: z.string(),
  text: z.string(),
  expectedRoute: Route,
  route: Route,
  routeOk: z.boolean(),
  entitiesOk: z.boolean(),
  expectedEntities: z.record(z.string(), z.string()),
  entities: z.record(z.string(), z.string()),
  /** Multi messages only: whether the planned task kinds are the expected ones. */
  tasksOk: z.boolean().nullable(),
  tasks: z.array(z.string()),
  facts: z.array(z.object({ fact: z.string(), found: z.boolean(), note: z.string().optional() })),
  status: z.string(),
  path: z.array(z.string()),
  answer: z.string().nullable(),
  error: z.string().optional(),
});
/** How one labelled message fared. */
export type EvalCase = z.infer<typeof EvalCase>;

const Ratio = z.object({ correct: z.number().int(), total: z.number().int(), percent: z.number() });

/** The result of an evaluation run: accuracies, facts found in answers, the confusion matrix and every case. */
export const EvalReport = z.object({
  split: z.string(),
  model: z.string(),
  startedAt: z.string(),
  durationMs: z.number(),
  messages: z.number().int(),
  route: Ratio,
  entities: Ratio,
  tasks: Ratio,
  /** Answers containing every expected fact, by route of the message (and `all`). */
  facts: z.record(z.string(), Ratio),
  /** confusion[expected][predicted] = count. */
  confusion: z.record(z.string(), z.record(z.string(), z.number().int())),
  cases: z.array(EvalCase),
});
/** The result of an evaluation run. */
export type EvalReport = z.infer<typeof EvalReport>;

/** `{ correct, total, percent }` with the percent rounded to one decimal. */
export const ratio = (correct: number, total: number) => ({ correct, total, percent: total === 0 ? 100 : Math.round((correct / total) * 1000) / 10 });
