import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { z } from 'zod';
import { ServerError } from './ServerError.js';

/** Where `npm run eval` writes its last report, relative to the working directory. */
export const DEFAULT_EVAL_FILE = '.switchboard/eval/latest.json';

const Ratio = z.object({ correct: z.number(), total: z.number(), percent: z.number() });

/** The summary of an eval report the workbench shows (its per-message cases are left out). */
export const EvalSummary = z.object({
  split: z.string(),
  model: z.string(),
  startedAt: z.string(),
  durationMs: z.number(),
  messages: z.number(),
  route: Ratio,
  entities: Ratio,
  tasks: Ratio,
  facts: z.record(z.string(), Ratio),
  confusion: z.record(z.string(), z.record(z.string(), z.number())),
});
/** The summary of an eval report. */
export type EvalSummary = z.infer<typeof EvalSummary> & { misses: number };

/**
 * Reads the last eval report (`npm run eval`) for `GET /api/eval`: its summary and how many
 * messages missed. No report yet is a `not_found` error saying how to make one; a file that is not
 * a report is a `server_config` error.
 */
export async function readLatestEval(file: string = process.env['SWITCHBOARD_EVAL_FILE'] ?? DEFAULT_EVAL_FILE): Promise<EvalSummary> {
  const path = resolve(file);
  const text = await readFile(path, 'utf8').catch(() => null);
  if (text === null) throw new ServerError(`no eval report at ${path} yet; run \`npm run eval\` to make one`, { code: 'not_found' });
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new ServerError(`the eval report ${path} is not JSON; run \`npm run eval\` again`, { code: 'server_config' });
  }
  const parsed = EvalSummary.safeParse(json);
  if (!parsed.success) throw new ServerError(`the eval report ${path} does not have the shape \`npm run eval\` writes; run it again`, { code: 'server_config' });
  const cases = z.array(z.object({ routeOk: z.boolean(), entitiesOk: z.boolean(), tasksOk: z.boolean().nullable(), facts: z.array(z.object({ found: z.boolean() })) })).safeParse((json as { cases?: unknown }).cases).data ?? [];
  const misses = cases.filter((c) => !c.routeOk || !c.entitiesOk || c.tasksOk === false || c.facts.some((f) => !f.found)).length;
  return { ...parsed.data, misses };
}
