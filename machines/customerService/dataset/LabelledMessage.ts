import { z } from 'zod';
import { Route } from '../Classification.js';

/**
 * The kinds of task a composite message is split into: a specialist's (`rag`, `tool`, `report`), or
 * `human` for the part a person must handle (a dispute or a request for a person beside other questions).
 */
export const TaskKind = z.enum(['rag', 'tool', 'report', 'human']);
/** A specialist kind a composite message is split into. */
export type TaskKind = z.infer<typeof TaskKind>;

/** What a message names: an order (always `SO` + 8 digits), a report month, an LED fault code. */
export const MessageEntities = z
  .object({
    orderId: z.string().regex(/^SO\d{8}$/).optional(),
    period: z.string().regex(/^\d{4}-(0[1-9]|1[0-2])$/).optional(),
    faultCode: z.string().regex(/^E\d{2}$/).optional(),
  })
  .strict();
/** What a message names. */
export type MessageEntities = z.infer<typeof MessageEntities>;

/** The time relative periods ("last month") are read against unless a message sets its own `now`. */
export const DATASET_NOW = '2026-10-12T09:00:00Z';

/**
 * One labelled customer message: its route, the entities it names, the specialist tasks it splits
 * into (`multi` only, in message order; one `tool` task per order when it names several), the facts the final answer must contain, the customer's
 * reply when the desk asks for an order number, and the clock it is read against.
 */
export const LabelledMessage = z
  .object({
    id: z.string().regex(/^[a-z]\d{3}$/),
    text: z.string().trim().min(1),
    route: Route,
    entities: MessageEntities.default({}),
    tasks: z.array(TaskKind).min(2).optional(),
    facts: z.array(z.string().min(1)).default([]),
    reply: z.string().min(1).optional(),
    now: z.iso.datetime().default(DATASET_NOW),
  })
  .strict()
  .refine((m) => (m.route === 'multi') === (m.tasks !== undefined), { message: 'tasks are given exactly for multi messages' });
/** One labelled customer message. */
export type LabelledMessage = z.infer<typeof LabelledMessage>;
