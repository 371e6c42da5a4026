import { SwitchboardError } from '../errors/SwitchboardError.js';
import type { GraphSpec } from './GraphSpec.js';
import { describeValue } from './describeValue.js';

/**
 * Where a stored run pauses (`RunOptions.breakpoints`): before the named nodes run, or after they
 * ran (when the next node is about to run). A paused run waits like a human wait (`waiting`, its
 * reason naming the breakpoint) and goes on when resumed without a reply. Kept with the run, so a
 * resumed or restarted run pauses at the same places. Breakpoints apply to nodes a step runs (not
 * human nodes, which wait anyway, nor a coordinator's dispatch); "after" the last node pauses nothing.
 */
export interface Breakpoints {
  before?: string[];
  after?: string[];
}

/** A breakpoint names no node of the graph, or is given where no store keeps the paused run. */
export class BreakpointError extends SwitchboardError {
  override readonly name = 'BreakpointError';

  constructor(message: string) {
    super(message, { code: 'invalid_breakpoint', fault: 'user', retryable: false });
  }
}

/** The breakpoints checked against the graph's nodes, or null when there are none. */
export function checkBreakpoints(given: unknown, spec: GraphSpec, stored: boolean): Required<Breakpoints> | null {
  if (given === undefined) return null;
  if (given === null || typeof given !== 'object' || Array.isArray(given)) {
    throw new BreakpointError(`RunOptions.breakpoints must be { before?: string[]; after?: string[] }; received ${describeValue(given)}`);
  }
  const ids = spec.nodes.map((n) => n.id);
  const out: Required<Breakpoints> = { before: [], after: [] };
  for (const side of ['before', 'after'] as const) {
    const names = (given as Breakpoints)[side];
    if (names === undefined) continue;
    if (!Array.isArray(names)) throw new BreakpointError(`RunOptions.breakpoints.${side} must be an array of node ids; received ${describeValue(names)}`);
    for (const name of names) {
      if (typeof name !== 'string' || !ids.includes(name)) {
        throw new BreakpointError(`breakpoint ${side} ${describeValue(name)}: graph "${spec.name}" has no such node; its nodes: ${ids.join(', ')}`);
      }
      if (!out[side].includes(name)) out[side].push(name);
    }
  }
  if (out.before.length === 0 && out.after.length === 0) return null;
  if (!stored) throw new BreakpointError('breakpoints pause a stored run: start it with a store (RunManager, `switchboard start`, the workbench)');
  return out;
}

/** The reason a run pauses at the start of a step of `nodeId` after `previous`, or null. */
export function pauseReason(breakpoints: Required<Breakpoints> | undefined | null, nodeId: string, previous: unknown): { reason: string; side: 'before' | 'after' } | null {
  if (breakpoints === undefined || breakpoints === null) return null;
  if (breakpoints.before.includes(nodeId)) return { reason: `breakpoint before ${nodeId}`, side: 'before' };
  if (typeof previous === 'string' && breakpoints.after.includes(previous)) return { reason: `breakpoint after ${previous} (next: ${nodeId})`, side: 'after' };
  return null;
}
