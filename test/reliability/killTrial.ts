import { mkdtempSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { RunRecord } from '../../src/index.js';
import { scenarioImagePath, type DemoScenario } from '../../machines/index.js';
import type { StoreTarget } from '../persistence/storeTargets.js';
import { cliLeg, lastJson, type LegResult } from './cliLeg.js';
import { readCalls, readEffects, readPoints } from './killLedger.js';

const GRAPHS = 'test/reliability/killSwitchGraphs.ts';
/** More legs than any trial needs (start, a killed recovery, recovery, resume, recovery …): a run still unfinished after them is lost. */
const MAX_LEGS = 8;

/** How a run ended, as the CLI printed it. */
export interface RunSummary {
  runId: string;
  status: string;
  path: string[];
  outputText: string | null;
}

/** An uninterrupted run of a scenario: the answer every trial must reach, and where it can be killed. */
export interface Reference {
  scenario: DemoScenario;
  final: RunSummary;
  /** Where the run waited for the reply (scenarios with a reply), as the store shows it. */
  waitingPath?: string[];
  /** The tools whose effects the run carried out, in order. */
  effects: string[];
  /** Model calls and effects per leg (start, then the resume when the scenario has a reply). */
  legs: Array<{ models: number; effects: number }>;
}

/** Where one leg of a trial dies: at a model call or effect (before it or right after it), or on a trace line. */
export interface KillSpec {
  killAt?: string;
  killAtLine?: number;
}

/** What one trial found. */
export interface TrialOutcome {
  scenario: string;
  store: 'sqlite' | 'postgres';
  plan: Array<KillSpec | undefined>;
  legs: Array<Pick<LegResult, 'args' | 'code' | 'signal' | 'killed' | 'hung'>>;
  kills: number;
  /** Problems found; empty when the run ended as the uninterrupted one did. */
  lost: string[];
  wrong: string[];
  repeatedEffects: string[];
  /** Idempotency keys a tool received more than once (a kill between the effect and its journal write), each closed by the key. */
  windowHits: number;
}

const legEnv = (target: StoreTarget, ledger: string, spec: KillSpec | undefined): Record<string, string> => ({
  ...target.env,
  SWITCHBOARD_KILL_LEDGER: ledger,
  SWITCHBOARD_KILL_AT: spec?.killAt ?? '',
  OPENAI_API_KEY: '',
});

function startArgs(s: DemoScenario, json: boolean): string[] {
  const image = scenarioImagePath(s);
  return [
    '--graphs', GRAPHS, 'run', s.message, '--graph', s.graph,
    ...(image ? ['--image', image] : []),
    ...(s.faults ?? []).flatMap((f) => ['--fault', f]),
    ...(s.toolBudget !== undefined ? ['--tool-budget', String(s.toolBudget)] : []),
    ...(json ? ['--json'] : []),
  ];
}

function newLedger(): string {
  const dir = join(mkdtempSync(join(tmpdir(), 'sb-kill-')), 'ledger');
  mkdirSync(dir);
  return dir;
}

/** Runs `use` with a fresh ledger directory, removed afterwards. */
async function withLedger<T>(use: (ledger: string) => Promise<T>): Promise<T> {
  const ledger = newLedger();
  try {
    return await use(ledger);
  } finally {
    rmSync(dirname(ledger), { recursive: true, force: true });
  }
}

/** Runs a scenario once, uninterrupted, through the same commands the trials use. */
export function referenceRun(s: DemoScenario, target: StoreTarget): Promise<Reference> {
  return withLedger((ledger) => reference(s, target, ledger));
}

async function reference(s: DemoScenario, target: StoreTarget, ledger: string): Promise<Reference> {
  const legs: LegResult[] = [await cliLeg(startArgs(s, true), { env: legEnv(target, ledger, undefined) })];
  let final = lastJson<RunSummary>(legs[0]!);
  let waitingPath: string[] | undefined;
  if (final?.status === 'waiting' && s.reply !== undefined) {
    waitingPath = lastJson<RunSummary>(await cliLeg(['--graphs', GRAPHS, 'show', final.runId, '--json'], { env: legEnv(target, ledger, undefined) }))?.path;
    legs.push(await cliLeg(['--graphs', GRAPHS, 'resume', final.runId, '--reply', s.reply, '--json'], { env: legEnv(target, ledger, undefined) }));
    final = lastJson<RunSummary>(legs[1]!);
  }
  if (final === undefined || legs.some((l) => l.killed || l.hung)) {
    throw new Error(`reference run of ${s.id} did not finish: ${legs.map((l) => `${l.code ?? l.signal} ${l.stderr}`).join(' | ')}`);
  }
  const points = readPoints(ledger);
  return {
    scenario: s,
    final,
    ...(waitingPath ? { waitingPath } : {}),
    effects: readEffects(ledger).map((e) => e.tool),
    legs: legs.map((l) => ({
      models: points.filter((p) => p.pid === l.pid && p.kind === 'model').length,
      effects: points.filter((p) => p.pid === l.pid && p.kind === 'effect').length,
    })),
  };
}

/** The scenario's own run in the store (a coordinator's specialist runs have ids below it). */
async function mainRun(target: StoreTarget): Promise<RunRecord | undefined> {
  return (await target.store.listRuns({ limit: 100 })).find((r) => !r.runId.includes('/'));
}

/**
 * One trial: start the scenario through the CLI with the first leg's kill, then — each in a new
 * process, as an operator would — recover the run while it is interrupted and resume it with the
 * scenario's reply while it waits, with the later legs' kills, until it ends. Then compare the end
 * with the uninterrupted run: the answer, the path, and every effect carried out exactly once.
 */
export function runTrial(ref: Reference, plan: Array<KillSpec | undefined>, target: StoreTarget, store: TrialOutcome['store']): Promise<TrialOutcome> {
  return withLedger((ledger) => trial(ref, plan, target, store, ledger));
}

async function trial(ref: Reference, plan: Array<KillSpec | undefined>, target: StoreTarget, store: TrialOutcome['store'], ledger: string): Promise<TrialOutcome> {
  const s = ref.scenario;
  const outcome: TrialOutcome = { scenario: s.id, store, plan, legs: [], kills: 0, lost: [], wrong: [], repeatedEffects: [], windowHits: 0 };
  let args = startArgs(s, plan[0]?.killAtLine === undefined);
  let final: RunSummary | undefined;
  let record: RunRecord | undefined;
  for (let i = 0; i < MAX_LEGS; i++) {
    const spec = plan[i];
    const leg = await cliLeg(args, { env: legEnv(target, ledger, spec), ...(spec?.killAtLine !== undefined ? { killAtLine: spec.killAtLine } : {}) });
    outcome.legs.push({ args: leg.args.slice(2, 4), code: leg.code, signal: leg.signal, killed: leg.killed, hung: leg.hung });
    if (leg.killed) outcome.kills += 1;
    if (leg.hung) {
      outcome.lost.push(`leg ${i + 1} (${leg.args.slice(2, 4).join(' ')}) hung`);
      return outcome;
    }
    if (!leg.killed && leg.code !== 0 && leg.code !== 3 && leg.code !== 1) outcome.lost.push(`leg ${i + 1} exited ${leg.code}: ${leg.stderr.trim()}`);
    record = await mainRun(target);
    if (record === undefined) {
      outcome.lost.push(`no run stored after leg ${i + 1} (${leg.killed ? 'killed' : `exit ${leg.code}`})`);
      return outcome;
    }
    const printed = lastJson<RunSummary | Array<RunSummary & { outcome: string }>>(leg);
    if (!leg.killed && printed !== undefined) final = Array.isArray(printed) ? printed.find((o) => o.runId === record!.runId) : printed;
    if (record.status === 'running' || record.status === 'interrupted') {
      args = ['--graphs', GRAPHS, 'recover', '--json'];
    } else if (record.status === 'waiting' && s.reply !== undefined && ref.final.status !== 'waiting') {
      // The stored waiting snapshot must end where the run waits (no later node written into it).
      const shown = lastJson<RunSummary>(await cliLeg(['--graphs', GRAPHS, 'show', record.runId, '--json'], { env: legEnv(target, ledger, undefined) }));
      if (JSON.stringify(shown?.path) !== JSON.stringify(ref.waitingPath)) {
        outcome.wrong.push(`stored waiting path ${shown?.path?.join('→')}, expected ${ref.waitingPath?.join('→')}`);
      }
      args = ['--graphs', GRAPHS, 'resume', record.runId, '--reply', s.reply, '--json'];
    } else {
      break;
    }
    final = undefined;
  }
  if (record === undefined || record.status === 'running' || record.status === 'interrupted' || (record.status === 'waiting' && ref.final.status !== 'waiting')) {
    outcome.lost.push(`run ${record?.runId} is still ${record?.status} after ${outcome.legs.length} legs`);
    return outcome;
  }
  if (final === undefined) {
    // The last leg printed a trace, not JSON (its trace-line kill came too late): ask the CLI.
    const shown = await cliLeg(['--graphs', GRAPHS, 'show', record.runId, '--json'], { env: legEnv(target, ledger, undefined) });
    final = lastJson<RunSummary>(shown);
  }
  const expected = ref.final;
  if (final?.status !== expected.status || record.status !== expected.status) outcome.wrong.push(`status ${final?.status}/${record.status}, expected ${expected.status}`);
  if (final?.outputText !== expected.outputText || record.outputText !== expected.outputText) {
    outcome.wrong.push(`answer ${JSON.stringify(final?.outputText)}, expected ${JSON.stringify(expected.outputText)}`);
  }
  if (JSON.stringify(final?.path) !== JSON.stringify(expected.path)) outcome.wrong.push(`path ${final?.path?.join('→')}, expected ${expected.path.join('→')}`);

  const effects = readEffects(ledger);
  const keys = effects.map((e) => e.key);
  for (const [index, key] of keys.entries()) if (keys.indexOf(key) !== index) outcome.repeatedEffects.push(`${key} carried out twice`);
  if (JSON.stringify(effects.map((e) => e.tool)) !== JSON.stringify(ref.effects)) {
    outcome.repeatedEffects.push(`effects ${effects.map((e) => e.tool).join(',')}, expected ${ref.effects.join(',')} (a repeat under a new key, or one lost)`);
  }
  const calls = readCalls(ledger);
  outcome.windowHits = new Set(calls.filter((key, index) => calls.indexOf(key) !== index)).size;
  return outcome;
}
