import type { RunManager } from '../graph/durable/RunManager.js';
import type { GraphsModule } from './loadGraphs.js';
import type { RunnableGraph } from '../graph/RunnableGraph.js';
import type { RunQueue } from '../queue/RunQueue.js';

/** What every command gets: where to print (control characters escaped), its exit code, and the stored runs of the loaded graphs. */
export interface CliContext {
  out: (text: string) => void;
  err: (text: string) => void;
  /** The exit code the command ends with when it returns normally (see `EXIT`; default 0). */
  setExitCode: (code: number) => void;
  /** Opens the store and loads the graphs on first use; closed by `main`. */
  runs: () => Promise<RunManager>;
  /**
   * The run queue when the distributed mode is on (`SWITCHBOARD_REDIS_URL`, with PostgreSQL in
   * `SWITCHBOARD_DATABASE_URL`), over the same store as `runs()`; null in the embedded mode.
   */
  queue: () => Promise<RunQueue | null>;
  /** The loaded graphs module (graphs and scenarios). */
  graphsModule: () => Promise<GraphsModule>;
  /** The loaded graphs (see `--graphs`), in the order the module lists them; no store is opened. */
  graphs: () => Promise<RunnableGraph[]>;
  /** Resolves when the user asks the command to stop (Ctrl-C / SIGTERM). */
  interrupted: () => Promise<void>;
}
