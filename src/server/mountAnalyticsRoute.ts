import type { Hono } from 'hono';
import { z } from 'zod';
import { analyzeTransitions, type TransitionAnalysis } from '../analytics/analyzeTransitions.js';
import { AnalyticsError } from '../errors/AnalyticsError.js';
import { setOwn } from '../analytics/setOwn.js';
import { storedTransitions } from '../analytics/storedTransitions.js';
import type { TransitionRecord } from '../analytics/TransitionRecord.js';
import { formatZodError } from '../errors/formatZodError.js';
import { wholeNumber } from '../input/wholeNumber.js';
import { ServerError } from './ServerError.js';
import type { WorkbenchRuns } from './WorkbenchRuns.js';

/** The last millisecond of 9999-12-31 (UTC): the latest `?since` taken. */
const MAX_SINCE_MS = 253_402_300_799_999;

/**
 * `GET /api/graphs/:name/analytics` query: only runs created since `since`, epoch ms in plain
 * decimal digits (absent or empty: every run).
 */
const AnalyticsQuery = z.object({
  since: z.preprocess((value) => (value === '' ? undefined : value), wholeNumber(0, MAX_SINCE_MS, 'a time in epoch milliseconds').optional()),
});

/**
 * `GET /api/graphs/:name/analytics`: the Markov chain of the graph's stored runs (and of the
 * specialists they ran), as `{ graph, analyses: { <workflow>: TransitionAnalysis } }` — what
 * `switchboard analyze --graph <name> --json` prints — with `errors: { <workflow>: { code, message } }`
 * for specialists that cannot be analysed (a graph that cannot be is answered with its error, 409).
 * An unknown graph is a 404.
 */
export function mountAnalyticsRoute(app: Hono, runs: WorkbenchRuns): void {
  app.get('/api/graphs/:name/analytics', async (c) => {
    const graph = runs.graph(c.req.param('name')).name;
    const parsed = AnalyticsQuery.safeParse({ since: c.req.query('since') });
    if (!parsed.success) throw new ServerError(`analytics query: ${formatZodError(parsed.error)}`, { code: 'bad_request' });
    const since = parsed.data.since;
    const window = since === undefined ? {} : { since };
    let records = await storedTransitions(runs.manager.store, { graph, ...window });
    // A graph that has only run as a specialist: its records are in the runs that started it.
    if (records.length === 0) records = (await storedTransitions(runs.manager.store, window)).filter((r) => r.workflow === graph);
    const byWorkflow = new Map<string, TransitionRecord[]>([[graph, []]]);
    for (const record of records) {
      const list = byWorkflow.get(record.workflow);
      if (list === undefined) byWorkflow.set(record.workflow, [record]);
      else list.push(record);
    }
    const analyses: Record<string, TransitionAnalysis> = {};
    const errors: Record<string, { code: string; message: string }> = {};
    for (const [workflow, list] of byWorkflow) {
      try {
        setOwn(analyses, workflow, analyzeTransitions(list));
      } catch (error) {
        // A specialist that cannot be analysed (one still going round a loop) does not take its graph's analysis with it.
        if (workflow === graph || !(error instanceof AnalyticsError)) throw error;
        setOwn(errors, workflow, { code: error.code, message: error.message });
      }
    }
    return c.json({ graph, analyses, ...(Object.keys(errors).length === 0 ? {} : { errors }) });
  });
}
