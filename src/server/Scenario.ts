import { z } from 'zod';
import { MessageText, ReplyText } from '../input/RunText.js';
import { ToolBudget } from '../input/ToolBudget.js';

/**
 * A canned request the workbench offers as a button (exported as `scenarios` by the graphs module,
 * beside `graphs`). `graph` defaults to the server's default graph; `image` is a file path,
 * resolved against the graphs module's folder, attached as the run's image when the button is used.
 */
export const Scenario = z.object({
  id: z.string().regex(/^[a-z0-9][a-z0-9_-]*$/i, 'scenario ids are letters, digits, "-" and "_"'),
  title: z.string().min(1),
  message: MessageText,
  graph: z.string().min(1).optional(),
  image: z.string().min(1).optional(),
  /** Faults to inject (request metadata `faults`), from the graphs module's `faults`. */
  faults: z.array(z.string()).optional(),
  /** Tool rounds allowed (request metadata `toolBudget`, see `ToolBudget`). */
  toolBudget: ToolBudget.optional(),
  /** For a scenario that waits for a person: the reply a demo resumes it with. */
  reply: ReplyText.optional(),
  /** How the scenario ends (after the reply, if any) when all is well; default `completed`. `switchboard scenarios` exits 1 when one ends otherwise. */
  expectedStatus: z.enum(['completed', 'waiting', 'failed', 'cancelled', 'max-steps', 'aborted', 'budget-exceeded']).optional(),
});
/** A canned request the workbench offers as a button. */
export type Scenario = z.infer<typeof Scenario>;

/** A list of scenarios with unique ids. */
export const ScenarioList = z.array(Scenario).superRefine((list, ctx) => {
  const seen = new Set<string>();
  for (const [i, s] of list.entries()) {
    if (seen.has(s.id)) ctx.addIssue({ code: 'custom', path: [i, 'id'], message: `duplicate scenario id "${s.id}"` });
    seen.add(s.id);
  }
});
