import type { ResumeOptions } from './durable/DurableOptions.js';
import { checkMaxSteps, type RunOptions } from './RunOptions.js';
import { describeValue } from './describeValue.js';
import { GraphDefinitionError } from '../errors/GraphDefinitionError.js';
import { initialBudget } from '../budget/Budget.js';

const STORE_METHODS = ['insertRun', 'getRun', 'listRuns', 'updateRun', 'renewLease', 'listEvents', 'getJournal', 'putJournal'] as const;

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;

/**
 * The options each call takes, as records keyed by the options' own interfaces: an option added to
 * `RunOptions` or `ResumeOptions` and not here fails to compile, instead of being refused at run time.
 */
const RUN_KEYS: Record<keyof RunOptions | 'streaming' | 'specialistRuns', true> = {
  runId: true, signal: true, session: true, maxSteps: true, state: true, onEvent: true, recorders: true, inspect: true, clock: true, budget: true, stepRunner: true, breakpoints: true,
  store: true, owner: true, leaseMs: true, streaming: true, specialistRuns: true,
};
const RESUME_KEYS: Record<keyof ResumeOptions, true> = {
  store: true, owner: true, leaseMs: true, signal: true, session: true, onEvent: true, recorders: true, inspect: true, clock: true, streaming: true, stepRunner: true, specialistRuns: true,
};
/** A queued run's (`QueuedRunOptions`, and the queue's store): a worker runs it, with its own listeners. */
const QUEUED_KEYS: Record<keyof Pick<RunOptions, 'runId' | 'state' | 'maxSteps' | 'budget' | 'store'>, true> = { runId: true, state: true, maxSteps: true, budget: true, store: true };

/** Every option a run's start takes (`RunOptions` with `DurableOptions`, and the engine's own `streaming` and `specialistRuns`): see {@link checkOptionKeys}. */
const KNOWN_OPTIONS: readonly string[] = Object.keys(RUN_KEYS);
const QUEUED_OPTIONS: readonly string[] = Object.keys(QUEUED_KEYS);
/** The options a resume takes (`ResumeOptions`): a run's start options less what its snapshot keeps. */
const RESUME_OPTIONS: readonly string[] = Object.keys(RESUME_KEYS);

/** The option of `known` that `key` is most likely a slip for, if any: the same letters in another case, or one or two edits away (a typed workflow's own options count too). */
function closestOption(key: string, known: readonly string[]): string | null {
  const lower = key.toLowerCase();
  let best: string | null = null;
  let bestDistance = 3;
  for (const option of [...known, 'context', 'maxIterations']) {
    const distance = option.toLowerCase() === lower ? 0 : editDistance(lower, option.toLowerCase(), bestDistance);
    if (distance < bestDistance) [best, bestDistance] = [option, distance];
  }
  return best;
}

/** Levenshtein distance of `a` and `b`, or `cap` once it is at least that. */
function editDistance(a: string, b: string, cap: number): number {
  if (Math.abs(a.length - b.length) >= cap) return cap;
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) row[j] = Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    if (Math.min(...row) >= cap) return cap;
    previous = row;
  }
  return Math.min(previous[b.length]!, cap);
}

function fail(field: string, expected: string, value: unknown): never {
  throw new GraphDefinitionError(`${field} must be ${expected}; received ${describeValue(value)}`);
}

/**
 * Refuses a key of a run's start options (`kind` 'run'), a resume's or a queued run's that the
 * call does not take — a misspelt `budget` would otherwise start a run without its budget, and a
 * `budget` given to a resume be dropped, with nothing said — suggesting the option it is closest to.
 */
export function checkOptionKeys(options: object, kind: 'run' | 'resume' | 'queued run' = 'run'): void {
  const resume = kind === 'resume';
  const where = resume ? 'ResumeOptions' : 'RunOptions';
  const known = resume ? RESUME_OPTIONS : kind === 'queued run' ? QUEUED_OPTIONS : KNOWN_OPTIONS;
  for (const key of Object.keys(options)) {
    if (known.includes(key)) continue;
    // A run option a resume does not take (its budget, state, run id and fuse are the run's, kept in its
    // snapshot), or one a queued run cannot honour (a worker runs it, with its own listeners and signal).
    const why = !KNOWN_OPTIONS.includes(key)
      ? null
      : resume
        ? `; it belongs to the run's start (a resumed run keeps its own ${key}); a resume takes ${known.join(', ')}`
        : `; a worker runs a queued run, with its own; a queued run takes ${known.join(', ')}`;
    const near = closestOption(key, known);
    const hint = why ?? (near === null ? `; the options are ${known.join(', ')}` : `: did you mean "${near}"?`);
    throw new GraphDefinitionError(`${where}.${key} is not an option of a ${kind}${hint} (received ${describeValue((options as Record<string, unknown>)[key])})`);
  }
}

/**
 * Checks run (or resume) options that are easy to get wrong, before anything runs or is stored:
 * each field that is present must have the right type, or a `GraphDefinitionError` names it, what
 * it must be and what it was.
 */
export function checkRunOptions(options: RunOptions | Partial<ResumeOptions>, where = 'RunOptions'): void {
  if (!isObject(options) || Array.isArray(options)) fail(where, 'an object (or omitted)', options);
  const o = options as RunOptions;
  if (o.maxSteps !== undefined) checkMaxSteps(o.maxSteps, where);
  if (o.runId !== undefined && (typeof o.runId !== 'string' || o.runId.trim() === '' || o.runId.length > 200)) {
    fail(`${where}.runId`, 'a non-blank string of at most 200 characters (omit it to get a generated id)', o.runId);
  }
  if (o.state !== undefined && (!isObject(o.state) || Array.isArray(o.state) || o.state instanceof Map)) {
    fail(`${where}.state`, 'a plain object of JSON values (not a Map or an array); it seeds the shared state', o.state);
  }
  if (o.signal !== undefined && !(isObject(o.signal) && typeof o.signal.aborted === 'boolean' && typeof o.signal.addEventListener === 'function')) {
    fail(`${where}.signal`, 'an AbortSignal', o.signal);
  }
  if (o.onEvent !== undefined && typeof o.onEvent !== 'function') fail(`${where}.onEvent`, 'a function (event) => void', o.onEvent);
  if (o.recorders !== undefined) {
    if (!Array.isArray(o.recorders)) fail(`${where}.recorders`, 'an array of recorders', o.recorders);
    o.recorders.forEach((recorder: unknown, i) => {
      if (!isObject(recorder) || typeof recorder.record !== 'function') fail(`${where}.recorders[${i}]`, 'an object with record(event)', recorder);
    });
  }
  if (o.inspect !== undefined && typeof o.inspect !== 'function' && !(isObject(o.inspect) && typeof o.inspect.next === 'function')) {
    fail(`${where}.inspect`, 'a function or an observer with next(event)', o.inspect);
  }
  if (o.clock !== undefined && !(isObject(o.clock) && typeof o.clock.now === 'function')) fail(`${where}.clock`, 'an object with now() returning epoch ms', o.clock);
  if (o.store !== undefined) {
    const missing = isObject(o.store) ? STORE_METHODS.filter((m) => typeof (o.store as unknown as Record<string, unknown>)[m] !== 'function') : STORE_METHODS;
    if (missing.length > 0) fail(`${where}.store`, `a RunStore (SqliteRunStore, PostgresRunStore or one with ${missing.join(', ')})`, o.store);
  }
  if ('budget' in o && o.budget !== undefined) initialBudget(o.budget, `${where}.budget`);
  const runner = (o as RunOptions).stepRunner;
  if (runner !== undefined && !(isObject(runner) && typeof runner.run === 'function')) fail(`${where}.stepRunner`, 'a StepRunner (localStepRunner(), checkpointingStepRunner(store) or an object with run(call, execute))', runner);
  if (o.owner !== undefined && (typeof o.owner !== 'string' || o.owner.trim() === '')) fail(`${where}.owner`, 'a non-blank string', o.owner);
  if (o.leaseMs !== undefined && (typeof o.leaseMs !== 'number' || !Number.isInteger(o.leaseMs) || o.leaseMs < 1 || o.leaseMs > 2_147_483_647)) {
    fail(`${where}.leaseMs`, 'a positive integer number of milliseconds (at most 2147483647)', o.leaseMs);
  }
}
