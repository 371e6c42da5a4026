/**
 * A graphs module for the kill -9 trials (`switchboard --graphs test/reliability/killSwitchGraphs.ts`):
 * the real customer-service graph and the refund-approval graph with the project's scenarios, except
 * that
 * - the order tools declare `sideEffects` and go through a ledger that honours their idempotency key
 *   (like a payment API: a key it has seen returns the first result and does nothing), and
 * - a kill switch read from the environment ends the process with SIGKILL at a chosen model call or
 *   effect, before it or right after it (after an effect: before its result reaches the journal).
 *
 * SWITCHBOARD_KILL_LEDGER  a directory: `effects.jsonl` (one line per effect carried out),
 *                          `calls.jsonl` (one line per call the tools received, repeats included) and
 *                          `points.jsonl` (every model call and effect, by process, for planning kills)
 * SWITCHBOARD_KILL_AT      `model:N:before`, `model:N:after`, `effect:N:before` or `effect:N:after`
 *                          (N counts from 1 in this process); unset or empty: never
 */
import { appendFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { createModelFromEnv, tool, type ModelClient, type ModelRequest, type Tool, type RunnableGraph } from 'switchboard';
import { customerService } from '../../machines/customerService.js';
import { refundApproval } from '../../machines/refundApproval.js';
import { createOrderTools } from '../../specialists/index.js';
import { readEffects, type LedgerEffect } from './killLedger.js';

export { faults, scenarios } from '../../machines/index.js';

const ledgerDir = process.env.SWITCHBOARD_KILL_LEDGER;
if (ledgerDir === undefined || !existsSync(ledgerDir)) throw new Error('SWITCHBOARD_KILL_LEDGER must name an existing directory');
const effectsFile = join(ledgerDir, 'effects.jsonl');
const callsFile = join(ledgerDir, 'calls.jsonl');
const pointsFile = join(ledgerDir, 'points.jsonl');
const killAt = (process.env.SWITCHBOARD_KILL_AT ?? '').trim();
const plan = /^(model|effect):(\d+):(before|after)$/.exec(killAt);
if (killAt !== '' && plan === null) throw new Error(`SWITCHBOARD_KILL_AT must look like model:3:after or effect:1:before; received "${killAt}"`);
const counts = { model: 0, effect: 0 };

/** Counts one `kind` point in this process (and notes it in `points.jsonl`); dies at the planned one, in the planned phase. */
function point(kind: 'model' | 'effect'): { before(): void; after(): void } {
  const n = ++counts[kind];
  appendFileSync(pointsFile, `${JSON.stringify({ pid: process.pid, kind, n })}\n`);
  const hit = plan !== null && plan[1] === kind && Number(plan[2]) === n;
  const die = () => process.kill(process.pid, 'SIGKILL');
  return { before: () => hit && plan![3] === 'before' && die(), after: () => hit && plan![3] === 'after' && die() };
}

/** The order tool `inner`, as a side-effecting tool whose effect is recorded once per idempotency key. */
function ledgered(inner: Tool): Tool {
  return tool({
    name: inner.name,
    description: inner.description,
    parameters: inner.parameters,
    sideEffects: true,
    execute: async (args, ctx) => {
      const key = ctx.idempotencyKey;
      if (key === undefined) throw new Error(`${inner.name} ran without an idempotency key`);
      appendFileSync(callsFile, `${JSON.stringify({ key })}\n`);
      const seen = readEffects(ledgerDir!).find((e) => e.key === key);
      if (seen !== undefined) return seen.result; // the key is honoured: nothing happens twice
      const at = point('effect');
      at.before();
      const result = await inner.execute(args, ctx);
      appendFileSync(effectsFile, `${JSON.stringify({ key, tool: inner.name, pid: process.pid, result } satisfies LedgerEffect)}\n`);
      at.after(); // the effect happened; its result is not journaled yet
      return result;
    },
  });
}

/** The environment's model (offline without a key), with the kill switch around every call. */
function killableModel(inner: ModelClient): ModelClient {
  return {
    name: inner.name,
    complete: async (request: ModelRequest) => {
      const at = point('model');
      at.before();
      const response = await inner.complete(request);
      at.after();
      return response;
    },
    stream: async function* (request: ModelRequest) {
      const at = point('model');
      at.before();
      yield* inner.stream(request);
      at.after();
    },
  };
}

const tools = Object.values(createOrderTools()).map((t) => ledgered(t as unknown as Tool));

export const graphs: RunnableGraph[] = [customerService({ model: killableModel(createModelFromEnv()), tools }), refundApproval()];
