import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { RunManager } from '../graph/durable/RunManager.js';
import { toRunnableGraph, type RegisteredGraph } from '../graph/RunnableGraph.js';
import type { RunStore } from '../persistence/RunStore.js';
import { mountApiRoutes } from './mountApiRoutes.js';
import { errorResponse } from './errorResponse.js';
import { RunHub } from './RunHub.js';
import type { Scenario } from './Scenario.js';
import { ServerError } from './ServerError.js';
import { tokenAuth } from './tokenAuth.js';
import { HostAllowList, allowedHostsFromEnv } from './HostAllowList.js';
import { requestGuard } from './requestGuard.js';
import { mountWebAssets } from './mountWebAssets.js';
import { WorkbenchRuns } from './WorkbenchRuns.js';
import type { RunQueue } from '../queue/RunQueue.js';

/** Options for {@link createServer}. */
export interface ServerOptions {
  /** Where runs are stored (the CLI passes `createStoreFromEnv()`). */
  store: RunStore;
  /** The graphs (and typed workflows) runs can be started of. */
  graphs: readonly RegisteredGraph[];
  /** Buttons the page offers (see `Scenario`). Default none. */
  scenarios?: readonly Scenario[];
  /** The folder scenario image paths are resolved against (default: the working directory). */
  scenarioRoot?: string;
  /**
   * Fault names the graphs understand (a graphs module's `faults` export): the page's start form
   * offers them and `POST /api/runs` accepts them as `faults` (they reach the run as
   * `request.metadata.faults`, as `--fault` does). Default none.
   */
  faults?: readonly string[];
  /**
   * Model names a run may choose (a graphs module's `models` export, which `switchboard serve`
   * passes: `offline`, and with `OPENAI_API_KEY` the names in `SWITCHBOARD_MODEL` and
   * `SWITCHBOARD_MODELS`; see `modelsFromEnv`), the default first: the page's start form offers
   * them, `GET /api/graphs` lists them and `POST /api/runs` accepts one as `model` (it reaches the
   * run as `request.metadata.model`; graphs built with a `ModelCatalog` run their agents on it).
   * Default none: a start naming a model is refused (`model_not_offered`), as is one naming a
   * model for a graph with no `modelNode` (see `checkModelChoice`).
   */
  models?: readonly string[];
  /** The graph a start without `graph` uses (default: the first). */
  defaultGraph?: string;
  /** When set, every `/api` request must carry it (`Authorization: Bearer …` or `?token=`). */
  token?: string;
  /**
   * Host names the server answers to besides loopback (`localhost`, `127.0.0.1`, `[::1]`); a name
   * starting with a dot also allows its subdomains. Names in `SWITCHBOARD_ALLOWED_HOSTS`
   * (comma-separated) are added; `startServer` adds the address it binds. Other `Host`s get 421.
   */
  allowedHosts?: readonly string[];
  /** Heartbeat interval of event streams (default 15 000 ms). */
  heartbeatMs?: number;
  /**
   * Most bytes of events queued for one event-stream client beyond what its connection holds
   * (default 1 MiB). A client that falls that far behind is paused, then catches up from the store
   * once it reads again; it never holds up the other clients.
   */
  streamBufferBytes?: number;
  /**
   * How long an event-stream client may leave bytes queued without its connection taking any
   * (default 60 000 ms): past that its connection is closed, so a client that stopped reading
   * holds no memory for good. EventSource reconnects and resumes from `Last-Event-ID`.
   */
  streamStallMs?: number;
  /** The eval report `GET /api/eval` shows (default `SWITCHBOARD_EVAL_FILE` or `.switchboard/eval/latest.json`). */
  evalFile?: string;
  /** How often a stream of a run executed elsewhere reads the store (default 1000 ms). */
  pollMs?: number;
  /** Largest accepted request body in bytes (default 8 MiB, room for a 5 MiB image in base64). */
  maxBodyBytes?: number;
  /** Where server errors are written (default: nowhere; the CLI passes stderr). */
  log?: (line: string) => void;
  /**
   * The run queue of the distributed mode (`switchboard serve` passes one when
   * `SWITCHBOARD_REDIS_URL` is set): runs are started, resumed and cancelled through it and
   * workers run them; their events reach the page's streams from the store. Its store should be
   * `store`. Default none: legs run in this process.
   */
  queue?: RunQueue;
  /** Lease owner id and length for the runs this server executes. */
  owner?: string;
  leaseMs?: number;
}

/** A workbench: the hono app (`app.fetch`, `app.request`) and what it runs on. */
export interface Workbench {
  app: Hono;
  runs: WorkbenchRuns;
  /**
   * Waits for the legs this server started (up to `timeoutMs`, default 10 s); the store stays open.
   * Rejects with a `DrainTimeoutError` naming the runs still running if they have not all ended by then.
   */
  close(timeoutMs?: number): Promise<void>;
}

/**
 * The workbench HTTP API and page as a hono app, not yet listening (see `startServer`): JSON
 * routes under `/api` (zod-validated bodies, typed errors as `{ error: { code, message } }`),
 * each run's events as Server-Sent Events, and the page from `web/`. Every request passes the
 * request guard first (see `requestGuard`): allowed `Host`s only, and state-changing requests only
 * as `application/json` from the same origin.
 *
 * @example
 * const { app } = createServer({ store: new SqliteRunStore(), graphs });
 * const res = await app.request('/api/runs', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ message: 'hi' }) });
 */
export function createServer(options: ServerOptions): Workbench {
  const log = options.log ?? (() => undefined);
  const graphs = options.graphs.map(toRunnableGraph);
  const manager = new RunManager({
    store: options.store,
    graphs,
    ...(options.owner ? { owner: options.owner } : {}),
    ...(options.leaseMs ? { leaseMs: options.leaseMs } : {}),
  });
  const hub = new RunHub(options.store, options.pollMs === undefined ? {} : { pollMs: options.pollMs });
  const runs = new WorkbenchRuns({
    manager,
    hub,
    graphs,
    ...(options.defaultGraph ? { defaultGraph: options.defaultGraph } : {}),
    ...(options.queue ? { queue: options.queue } : {}),
    onLegError: (runId, error) => log(`switchboard serve: run ${runId} stopped on an error: ${(error as Error).message ?? String(error)}`),
  });
  const app = new Hono();
  app.onError((error, c) => errorResponse(c, error, log));
  app.notFound((c) => errorResponse(c, new ServerError(`no route ${c.req.method} ${c.req.path}`, { code: 'not_found' }), log));
  // Before the token: other origins and foreign Hosts are refused whether or not a token is set.
  app.use('*', requestGuard(new HostAllowList([...(options.allowedHosts ?? []), ...allowedHostsFromEnv(process.env.SWITCHBOARD_ALLOWED_HOSTS)])));
  if (options.token !== undefined && options.token !== '') app.use('/api/*', tokenAuth(options.token));
  const maxSize = options.maxBodyBytes ?? 8 * 1024 * 1024;
  app.use(
    '/api/*',
    bodyLimit({
      maxSize,
      onError: () => {
        throw new ServerError(`the request body is larger than ${maxSize} bytes; images must be at most 5 MiB`, { code: 'bad_request' });
      },
    }),
  );
  mountApiRoutes(app, {
    runs,
    scenarios: options.scenarios ?? [],
    scenarioRoot: options.scenarioRoot ?? process.cwd(),
    faults: options.faults ?? [],
    models: options.models ?? [],
    heartbeatMs: options.heartbeatMs ?? 15_000,
    streamBufferBytes: options.streamBufferBytes ?? 1024 * 1024,
    streamStallMs: stallMsOf(options.streamStallMs),
    ...(options.evalFile === undefined ? {} : { evalFile: options.evalFile }),
  });
  mountWebAssets(app);
  return { app, runs, close: (timeoutMs) => runs.drain(timeoutMs) };
}

/** The longest a timer waits in Node. */
const MAX_TIMER_MS = 2_147_483_647;

/** `streamStallMs`, checked: a whole number of milliseconds from 1 to 2,147,483,647. */
function stallMsOf(value: unknown): number {
  if (value === undefined) return 60_000;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > MAX_TIMER_MS) {
    throw new ServerError(`createServer: streamStallMs must be a whole number of milliseconds from 1 to ${MAX_TIMER_MS}; received ${JSON.stringify(value) ?? String(value)}`, { code: 'server_config' });
  }
  return value;
}
