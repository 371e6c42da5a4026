import { GraphDefinitionError } from '../errors/GraphDefinitionError.js';
import type { Gate, GateOutcome } from './Gate.js';

/** Options of {@link HumanGate}. */
export interface HumanGateOptions {
  /** How long the person has (ms); after it the run takes `onTimeout`. Omitted: no deadline. */
  timeoutMs?: number;
  /** The clock the deadline is set and checked by (default `Date.now`); tests inject one. */
  now?: () => number;
  /** The gate's name in the graph (default `human-gate`). */
  name?: string;
}

/**
 * A gate where a person decides: the run waits (status `waiting`, like a human node) until it is
 * resumed with `{ decision: 'PASS' | 'FAIL', text? }`. The deadline (`timeoutMs`) is stored with
 * the run; a reply that comes after it — even in another process, after a restart — takes
 * `onTimeout` (send `{ decision: 'TIMEOUT' }` to apply a passed deadline without a decision).
 */
export class HumanGate<O = unknown> implements Gate<O> {
  readonly name: string;
  readonly waitsForPerson: { timeoutMs: number | null; now: () => number };

  constructor(options: HumanGateOptions = {}) {
    const { timeoutMs, now, name } = options;
    if (timeoutMs !== undefined && (!Number.isFinite(timeoutMs) || timeoutMs < 0)) {
      throw new GraphDefinitionError(`HumanGate: timeoutMs must be a number of milliseconds ≥ 0; received ${String(timeoutMs)}`);
    }
    if (now !== undefined && typeof now !== 'function') throw new GraphDefinitionError('HumanGate: now must be a function returning epoch milliseconds');
    this.name = name ?? 'human-gate';
    this.waitsForPerson = { timeoutMs: timeoutMs ?? null, now: now ?? Date.now };
  }

  /** Never called by the engine (a person decides); says so if called directly. */
  evaluate(): GateOutcome {
    return 'ESCALATE';
  }
}
