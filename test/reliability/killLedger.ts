import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** One effect carried out, as the ledger of test/reliability/killSwitchGraphs.ts records it. */
export interface LedgerEffect {
  key: string;
  tool: string;
  pid: number;
  result: unknown;
}

/** A model call or an effect a process reached (whether or not it finished it). */
export interface KillPoint {
  pid: number;
  kind: 'model' | 'effect';
  n: number;
}

function readLines<T>(file: string): T[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8').split('\n').filter((line) => line !== '').map((line) => JSON.parse(line) as T);
}

/** Every effect in a ledger directory, in the order they were carried out. */
export const readEffects = (dir: string): LedgerEffect[] => readLines<LedgerEffect>(join(dir, 'effects.jsonl'));

/** Every idempotency key the tools were called with, repeats included. */
export const readCalls = (dir: string): string[] => readLines<{ key: string }>(join(dir, 'calls.jsonl')).map((c) => c.key);

/** Every model call and effect each process reached. */
export const readPoints = (dir: string): KillPoint[] => readLines<KillPoint>(join(dir, 'points.jsonl'));
