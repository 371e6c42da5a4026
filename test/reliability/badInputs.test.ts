import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresRunStore, SWITCHBOARD_ERROR_CODES, SqliteRunStore, type RunOptions, type RunStore } from '../../src/index.js';
import { PG_URL } from '../persistence/storeTargets.js';
import { CATEGORIES, classify, generateBadCases, type BadCase, type CaseEnv, type Outcome, type Target } from './badInputCases.js';

/** How many cases (SWITCHBOARD_FUZZ_CASES for a longer run) and which seed (SWITCHBOARD_FUZZ_SEED to replay one). */
const COUNT = Number(process.env.SWITCHBOARD_FUZZ_CASES ?? 1200);
const SEED = Number(process.env.SWITCHBOARD_FUZZ_SEED ?? 20261203);
/** The engine cancels a case's run after this long; a generated bad input settles in milliseconds. */
const CASE_DEADLINE_MS = 20_000;
/** Beyond the engine's deadline: a case whose promise never settles at all. */
const WATCHDOG_MS = 60_000;
const SMALL = 64 * 1024;

const known: ReadonlySet<string> = new Set(SWITCHBOARD_ERROR_CODES);
const stores: Record<Exclude<Target, 'memory'>, { store: RunStore; small: RunStore } | null> = { sqlite: null, postgres: null };
const schema = `fuzz_${process.pid}_${Date.now().toString(36)}`;

beforeAll(() => {
  const dir = mkdtempSync(join(tmpdir(), 'sb-fuzz-'));
  stores.sqlite = { store: new SqliteRunStore({ file: join(dir, 'runs.db') }), small: new SqliteRunStore({ file: join(dir, 'small.db'), maxValueBytes: SMALL }) };
  stores.postgres = {
    store: new PostgresRunStore({ url: PG_URL, schema, max: 4 }),
    small: new PostgresRunStore({ url: PG_URL, schema: `${schema}_small`, max: 2, maxValueBytes: SMALL }),
  };
});

afterAll(async () => {
  for (const pair of Object.values(stores)) {
    await pair?.store.close();
    await pair?.small.close();
  }
});

function envFor(target: Target): CaseEnv {
  const pair = target === 'memory' ? null : stores[target]!;
  return {
    store: pair?.store,
    smallStore: pair?.small,
    options: (extra: RunOptions = {}) => ({ signal: AbortSignal.timeout(CASE_DEADLINE_MS), ...(pair ? { store: pair.store } : {}), ...extra }),
  };
}

async function runCase(bad: BadCase): Promise<Outcome> {
  let timer: NodeJS.Timeout | undefined;
  const watchdog = new Promise<'hang'>((resolve) => (timer = setTimeout(() => resolve('hang'), WATCHDOG_MS)));
  try {
    const settled = await Promise.race([
      Promise.resolve()
        .then(() => bad.act(envFor(bad.target)))
        .then(
          (value) => ({ value }),
          (error: unknown) => ({ error }),
        ),
      watchdog,
    ]);
    return settled === 'hang' ? { kind: 'hang' } : classify(bad, settled, known);
  } finally {
    clearTimeout(timer);
  }
}

describe('generated bad library inputs', () => {
  it(`${COUNT} cases (seed ${SEED}): every one is refused with a typed error of the expected code; nothing escapes, exits or hangs`, async () => {
    const cases = generateBadCases(COUNT, SEED);
    const escaped: unknown[] = [];
    const onEscape = (error: unknown) => escaped.push(error);
    process.on('unhandledRejection', onEscape);
    process.on('uncaughtException', onEscape);
    const realExit = process.exit;
    let exits = 0;
    process.exit = ((code?: number) => {
      exits += 1;
      throw new Error(`process.exit(${String(code)}) called by the library`);
    }) as typeof process.exit;
    const failures: string[] = [];
    const table = new Map<string, Record<Outcome['kind'] | 'total', number>>();
    const row = (key: string) => {
      let r = table.get(key);
      if (r === undefined) table.set(key, (r = { total: 0, rejected: 0, 'wrong-code': 0, untyped: 0, silent: 0, hang: 0 }));
      return r;
    };
    try {
      for (const bad of cases) {
        const outcome = await runCase(bad);
        for (const key of [bad.category, `target:${bad.target}`]) {
          row(key).total += 1;
          row(key)[outcome.kind] += 1;
        }
        if (outcome.kind !== 'rejected') failures.push(`#${bad.id} [${bad.category}/${bad.target}] ${bad.label} → ${outcome.kind} ${JSON.stringify(outcome)}`);
      }
      // Rejections of promises a callback returned are seen a few turns later.
      for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.exit = realExit;
      process.off('unhandledRejection', onEscape);
      process.off('uncaughtException', onEscape);
    }
    const lines = [...CATEGORIES, 'target:memory', 'target:sqlite', 'target:postgres'].map((key) => {
      const r = row(key);
      return `${key.padEnd(18)} ${String(r.total).padStart(5)} cases: ${r.rejected} refused with the expected typed error, ${r.untyped} untyped, ${r['wrong-code']} wrong code, ${r.silent} silently accepted, ${r.hang} hung`;
    });
    if (failures.length > 0) console.log(`failed cases (replay with SWITCHBOARD_FUZZ_SEED=${SEED}):\n${failures.join('\n')}`);
    console.log(`bad-input suite, seed ${SEED}:\n${lines.join('\n')}\nprocess exits: ${exits}, escaped rejections/exceptions: ${escaped.length}`);
    expect(failures.slice(0, 40), failures.length > 40 ? `${failures.length} failures in all` : undefined).toEqual([]);
    expect(escaped.map(String)).toEqual([]);
    expect(exits).toBe(0);
    expect(cases.length).toBeGreaterThanOrEqual(Math.min(COUNT, 1000));
    for (const category of CATEGORIES) expect(row(category).total, category).toBeGreaterThan(0);
    expect(row('target:postgres').total).toBeGreaterThan(0);
  });
});
