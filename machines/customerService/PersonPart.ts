import { z } from 'zod';

/**
 * The tasks of a composite request that a person takes over while the others are answered: a
 * `human` task, a specialist that asked for a person, or one that failed. Stored under
 * {@link PERSON_PART_KEY} by `multi_review`.
 */
export const PersonPart = z.array(z.object({ kind: z.string(), input: z.string(), reason: z.string() }));
/** The tasks a person takes over. */
export type PersonPart = z.infer<typeof PersonPart>;

/** The state key of the {@link PersonPart}. */
export const PERSON_PART_KEY = 'personPart';

/** Why the run goes to a person after the answered part: each task it takes over, with its reason. */
export function describePersonPart(part: PersonPart): string {
  return `a person takes over the rest of the request: ${part.map((p) => `${p.kind} task "${p.input}" (${p.reason})`).join('; ')}`;
}
