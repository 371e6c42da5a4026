import type { RunManager } from '../graph/durable/RunManager.js';
import type { Machines } from './loadMachines.js';

/** What every command gets: where to print, and the stored runs of the loaded graphs. */
export interface CliContext {
  out: (text: string) => void;
  err: (text: string) => void;
  /** Opens the store and loads the graphs on first use; closed by `main`. */
  runs: () => Promise<RunManager>;
  /** The graphs module's graphs and scenarios (loaded once). */
  machines: () => Promise<Machines>;
}
