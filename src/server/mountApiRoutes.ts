import { ServerResponse } from 'node:http';
import { resolve } from 'node:path';
import type { Context, Hono } from 'hono';
import { z } from 'zod';
import { StoredRunStatus } from '../persistence/RunStore.js';
import { formatZodError } from '../errors/formatZodError.js';
import { EVENT_STREAM_HEADERS, eventStream } from './eventStream.js';
import { machineDefinition } from './machineDefinition.js';
import { readBody } from './readBody.js';
import { readLatestEval } from './readLatestEval.js';
import { runDetail, runSummary } from '../json/RunSummaryJson.js';
import { toRunJson, type RunAcceptedJson } from '../json/RunJson.js';
import { toEventJson } from '../json/EventJson.js';
import { JSON_SCHEMA_VERSION } from '../json/jsonSchemaVersion.js';
import type { Scenario } from './Scenario.js';
import { ServerError } from './ServerError.js';
import { ResumeRunBody } from './ResumeRunBody.js';
import { ForkRunBody } from './ForkRunBody.js';
import { readImageFile } from '../input/readImageFile.js';
import { StartRunBody, toRunRequest, type ImageUpload } from './StartRunBody.js';
import type { LegStarted, WorkbenchRuns } from './WorkbenchRuns.js';
import { mountAnalyticsRoute } from './mountAnalyticsRoute.js';
import { wholeNumber } from '../input/wholeNumber.js';
import { RunSearchText } from '../input/RunSearchText.js';
import { faultNames } from '../input/faultNames.js';
import { checkModelChoice } from '../model/checkModelChoice.js';

function emptyToUndefined(value: unknown): unknown {
  return value === '' ? undefined : value;
}
import { readRunHistory } from '../history/readRunHistory.js';
import { checkStep, stateFromHistory } from '../history/stateAt.js';
import { toRunStateJson } from '../json/RunStateJson.js';
import { runSpans } from '../trace/runSpans.js';

/** What the API routes need. */
export interface ApiContext {
  runs: WorkbenchRuns;
  scenarios: readonly Scenario[];
  /** The folder scenario image paths are relative to. */
  scenarioRoot: string;
  /** Fault names a start may inject (see `ServerOptions.faults`). */
  faults: readonly string[];
  /** Model names a start may choose, the default first (see `ServerOptions.models`). */
  models: readonly string[];
  heartbeatMs: number;
  /** Most bytes queued for one event-stream client (see `eventStream`). */
  streamBufferBytes: number;
  /** See `ServerOptions.streamStallMs`. */
  streamStallMs: number;
  /** The eval report `GET /api/eval` reads (default: see `readLatestEval`). */
  evalFile?: string;
}

/**
 * `GET /api/runs` query: `status`, `graph`, `search` (text in the run id, its input or its answer,
 * matched literally, A–Z case-insensitive) and `limit` (1 to 500 in plain decimal digits, default
 * 50); other parameters (a token, a cache buster) are ignored. An empty `status`, `graph` or `search` means no filter (what an emptied form sends).
 */
const ListRunsQuery = z.object({
  status: z.preprocess(emptyToUndefined, StoredRunStatus.optional()),
  graph: z.preprocess(emptyToUndefined, z.string().max(200).optional()),
  search: z.preprocess(emptyToUndefined, RunSearchText.optional()),
  limit: wholeNumber(1, 500, 'the number of runs').default(50),
});

/** The largest event seq a store holds (its `seq` column is a 32-bit integer in PostgreSQL). */
const MAX_SEQ = 2_147_483_647;

/** `?at=<step>` of `GET /api/runs/:runId/state` (checked against the run afterwards). */
const StepQuery = z.object({ at: wholeNumber(0, 1_000_000_000, 'the step (?at)') });

/** An event seq from a header or query value in plain decimal digits (absent or empty: 0). */
function parseSeq(value: string | undefined, what: string): number {
  if (value === undefined || value === '') return 0;
  const parsed = wholeNumber(0, MAX_SEQ, `${what} (an event seq)`).safeParse(value);
  if (!parsed.success) throw new ServerError(formatZodError(parsed.error), { code: 'bad_request' });
  return parsed.data;
}

function parseQuery<S extends z.ZodType>(schema: S, query: unknown, what: string): z.infer<S> {
  const parsed = schema.safeParse(query);
  if (!parsed.success) throw new ServerError(`${what}: ${formatZodError(parsed.error)}`, { code: 'bad_request' });
  return parsed.data;
}

/** What a start or resume answers: the leg's run when it was waited for, else that it runs. */
function legAnswer(c: Context, started: LegStarted): Response {
  if (started.run !== undefined) return c.json(toRunJson(started.run), 200);
  const accepted: RunAcceptedJson = { schemaVersion: JSON_SCHEMA_VERSION, runId: started.runId, status: started.queued === true ? 'queued' : 'running' };
  return c.json(accepted, 202);
}

/** A scenario's picture, read like `--image`: a regular image file, bounded, typed by its bytes. */
async function scenarioImage(root: string, path: string): Promise<ImageUpload> {
  const image = await readImageFile(resolve(root, path), { name: `scenario image ${path}` }).catch((cause: unknown) => {
    throw new ServerError((cause as Error).message, { code: 'server_config', cause });
  });
  return { mediaType: image.mediaType, base64: image.bytes.toString('base64'), name: path.split('/').pop() ?? path };
}

/**
 * The JSON API under `/api`: graphs and their machine definitions, scenarios, runs (start, list,
 * get, events, resume, cancel), each run's event stream, and the last eval report (`/api/eval`).
 */
export function mountApiRoutes(app: Hono, ctx: ApiContext): void {
  const { runs } = ctx;
  const wantsWait = (query: string | undefined) => query === 'true' || query === '1';

  app.get('/api/eval', async (c) => c.json(await readLatestEval(ctx.evalFile)));

  app.get('/api/health', (c) => c.json({ ok: true, activeLegs: runs.activeLegs, subscribers: runs.hub.subscriberCount, pausedSubscribers: runs.hub.pausedCount }));

  // Each graph lists the offered models it runs on (none for a graph with no modelNode: a start naming one is refused).
  const modelsOf = (graph: { models?: readonly string[] }) => ctx.models.filter((m) => graph.models?.includes(m) === true);
  app.get('/api/graphs', (c) =>
    c.json({ default: runs.defaultGraph ?? null, graphs: runs.graphs.map((g) => ({ name: g.name, models: modelsOf(g) })), faults: [...ctx.faults], models: [...ctx.models] }),
  );

  app.get('/api/graphs/:name/definition', (c) => c.json(machineDefinition(runs.graph(c.req.param('name')).toMachine())));

  mountAnalyticsRoute(app, runs);

  app.get('/api/scenarios', (c) =>
    c.json(ctx.scenarios.map((s) => ({ id: s.id, title: s.title, message: s.message, graph: s.graph ?? runs.defaultGraph ?? null, hasImage: s.image !== undefined }))),
  );

  app.post('/api/scenarios/:id/runs', async (c) => {
    const scenario = ctx.scenarios.find((s) => s.id === c.req.param('id'));
    if (scenario === undefined) throw new ServerError(`no scenario "${c.req.param('id')}"; known: ${ctx.scenarios.map((s) => s.id).join(', ') || '(none)'}`, { code: 'not_found' });
    const image = scenario.image === undefined ? undefined : await scenarioImage(ctx.scenarioRoot, scenario.image);
    const request = toRunRequest({ message: scenario.message, image });
    // A scenario's injected faults and tool budget travel as request metadata, beside the image.
    const extra = { ...(scenario.faults?.length ? { faults: scenario.faults } : {}), ...(scenario.toolBudget !== undefined ? { toolBudget: scenario.toolBudget } : {}) };
    const withExtra = Object.keys(extra).length === 0 ? request : { ...request, metadata: { ...request.metadata, ...extra } };
    const started = await runs.start(scenario.graph, withExtra, { wait: wantsWait(c.req.query('wait')) });
    return legAnswer(c, started);
  });

  app.post('/api/runs', async (c) => {
    const body = await readBody(c, StartRunBody, 'POST /api/runs expects { message, graph?, image?: { mediaType, base64 }, budget?: { maxCost?, maxTokens?, maxIterations?, maxDuration? }, faults?: string[], model?, breakpoints? }');
    const faults = body.faults === undefined ? [] : parseQuery(faultNames(ctx.faults), body.faults, 'POST /api/runs faults');
    // A model the server does not offer, or one the graph would ignore, is refused before anything is stored.
    if (body.model !== undefined) checkModelChoice(body.model, ctx.models, runs.graph(body.graph), 'POST /api/runs model');
    const request = toRunRequest(body);
    // Injected faults and the chosen model travel as request metadata, beside the image (as `--fault` and scenarios send faults).
    const extra = { ...(faults.length === 0 ? {} : { faults: [...new Set(faults)] }), ...(body.model === undefined ? {} : { model: body.model }) };
    const withOptions = Object.keys(extra).length === 0 ? request : { ...request, metadata: { ...request.metadata, ...extra } };
    const started = await runs.start(body.graph, withOptions, {
      wait: wantsWait(c.req.query('wait')),
      ...(body.budget === undefined ? {} : { budget: body.budget }),
      ...(body.breakpoints === undefined ? {} : { breakpoints: body.breakpoints }),
    });
    return legAnswer(c, started);
  });

  app.get('/api/runs', async (c) => {
    const query = parseQuery(ListRunsQuery, c.req.query(), 'GET /api/runs');
    const records = await runs.manager.list({
      ...(query.status ? { status: query.status } : {}),
      ...(query.graph ? { graphName: query.graph } : {}),
      ...(query.search ? { search: query.search } : {}),
      limit: query.limit,
    });
    const firsts = await Promise.all(records.map((r) => runs.manager.store.listEvents(r.runId, { limit: 1 })));
    return c.json(records.map((r, i) => runSummary(r, firsts[i]?.[0]?.data, (record) => runs.manager.pathOf(record))));
  });

  app.get('/api/runs/:runId', async (c) => {
    const runId = c.req.param('runId');
    const record = await runs.manager.get(runId);
    const [first] = await runs.manager.store.listEvents(runId, { limit: 1 });
    return c.json(runDetail(record, runs.hub.isLive(runId), first?.data, (r) => runs.manager.pathOf(r)));
  });

  app.get('/api/runs/:runId/state', async (c) => {
    const history = await readRunHistory(runs.manager.store, c.req.param('runId'));
    const at = c.req.query('at');
    const step = at === undefined || at === '' ? history.steps.length : parseQuery(StepQuery, { at }, 'GET /api/runs/:runId/state ?at').at;
    return c.json(toRunStateJson(stateFromHistory(history, checkStep(history, step))));
  });

  app.get('/api/runs/:runId/events', async (c) => {
    const runId = c.req.param('runId');
    await runs.manager.get(runId);
    const afterSeq = parseSeq(c.req.query('after'), 'GET /api/runs/:runId/events ?after');
    return c.json((await runs.manager.events(runId, afterSeq)).map((e) => toEventJson(e.data)));
  });

  app.get('/api/runs/:runId/spans', async (c) => {
    const runId = c.req.param('runId');
    const record = await runs.manager.get(runId);
    return c.json(runSpans(runId, (await runs.manager.events(runId)).map((e) => e.data), record.status));
  });

  app.get('/api/runs/:runId/stream', async (c) => {
    const runId = c.req.param('runId');
    await runs.manager.get(runId);
    const afterSeq = parseSeq(c.req.header('last-event-id') ?? c.req.query('lastEventId'), 'Last-Event-ID (or ?lastEventId)');
    // HEAD (curl -I, a monitor) gets the headers only: the stream would write its body to the socket
    // itself, past hono's HEAD handling, and answer a request that takes no body with one.
    if (c.req.method === 'HEAD') return new Response(null, { headers: EVENT_STREAM_HEADERS });
    // On Node, the stream is written to the socket's response directly (no web stream per client).
    const outgoing = (c.env as { outgoing?: unknown } | undefined)?.outgoing;
    return eventStream(runs.hub, runId, {
      afterSeq,
      heartbeatMs: ctx.heartbeatMs,
      bufferBytes: ctx.streamBufferBytes,
      stallMs: ctx.streamStallMs,
      signal: c.req.raw.signal,
      ...(outgoing instanceof ServerResponse ? { outgoing } : {}),
    });
  });

  app.post('/api/runs/:runId/resume', async (c) => {
    const body = await readBody(c, ResumeRunBody, 'POST /api/runs/:runId/resume expects { reply } ({} to go on from a breakpoint)');
    const started = await runs.resume(c.req.param('runId'), body.reply, { wait: wantsWait(c.req.query('wait')) });
    return legAnswer(c, started);
  });

  app.post('/api/runs/:runId/fork', async (c) => {
    const body = await readBody(c, ForkRunBody, 'POST /api/runs/:runId/fork expects { at, state? }');
    const parentRunId = c.req.param('runId');
    const started = await runs.fork(parentRunId, { at: body.at, ...(body.state === undefined ? {} : { state: body.state }) }, { wait: wantsWait(c.req.query('wait')) });
    if (started.run !== undefined) return c.json(toRunJson(started.run, { runId: parentRunId, step: body.at }), 200);
    return legAnswer(c, started);
  });

  app.post('/api/runs/:runId/cancel', async (c) => {
    const record = await runs.cancel(c.req.param('runId'));
    const [first] = await runs.manager.store.listEvents(record.runId, { limit: 1 });
    return c.json(runSummary(record, first?.data, (r) => runs.manager.pathOf(r)));
  });
}
