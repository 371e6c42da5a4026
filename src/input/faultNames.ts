import { z } from 'zod';

/**
 * A schema for fault names to inject, checked against the names the graphs declare (a graphs
 * module's `faults` export). An unknown name is refused up front instead of failing the run.
 *
 * @example
 * faultNames(['tool_timeout']).parse(['tool_timeout']); // ok
 */
export function faultNames(known: readonly string[]) {
  const list = known.length === 0 ? 'none: the graphs module declares no faults (export `faults`)' : known.join(', ');
  return z
    .array(z.string({ error: 'fault names are strings' }), { error: 'faults must be a list of fault names' })
    .max(32, 'at most 32 faults')
    .superRefine((names, ctx) => {
      for (const name of new Set(names)) {
        if (!known.includes(name)) ctx.addIssue({ code: 'custom', message: `unknown fault ${JSON.stringify(name)}; known faults: ${list}` });
      }
    });
}
