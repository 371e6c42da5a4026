import { z } from 'zod';

/** What one model costs, in US dollars per million tokens read (`input`) and written (`output`). */
export const ModelPrice = z.object({
  input: z.number().finite().nonnegative(),
  output: z.number().finite().nonnegative(),
});
/** What one model costs, in US dollars per million tokens read (`input`) and written (`output`). */
export type ModelPrice = z.infer<typeof ModelPrice>;

/** Prices by model id (`gpt-4o-mini`, `deepseek-chat`, …); see {@link priceFor} for how a model finds its entry. */
export const PriceTable = z.record(z.string().min(1), ModelPrice);
/** Prices by model id; see {@link priceFor}. */
export type PriceTable = z.infer<typeof PriceTable>;

/**
 * What is wrong with a price table given in options (`RunOptions.budget.prices`, a transition
 * recorder's `prices`): the field at fault (`""` for the table itself, `["<model>"]` for an entry),
 * what it should be and what it is; null when it is a price table.
 */
export function priceTableProblem(value: unknown): { field: string; expected: string; value: unknown } | null {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return { field: '', expected: 'an object of { input, output } prices by model id', value };
  for (const [model, price] of Object.entries(value as Record<string, unknown>)) {
    if (model.trim() === '' || !ModelPrice.strict().safeParse(price).success) {
      return { field: `[${JSON.stringify(model)}]`, expected: '{ input, output }: USD per million tokens, finite numbers ≥ 0', value: price };
    }
  }
  return null;
}

/**
 * List prices of common models (USD per million tokens, as their providers published them in 2025),
 * used for every model a run's own `prices` do not name. Prices change: pass your own for anything
 * that bills you. The offline and scripted models cost nothing.
 */
export const DEFAULT_PRICES: Readonly<PriceTable> = Object.freeze({
  'gpt-4o': { input: 2.5, output: 10 },
  'gpt-4o-mini': { input: 0.15, output: 0.6 },
  'gpt-4.1': { input: 2, output: 8 },
  'gpt-4.1-mini': { input: 0.4, output: 1.6 },
  'gpt-4.1-nano': { input: 0.1, output: 0.4 },
  'gpt-4-turbo': { input: 10, output: 30 },
  'gpt-3.5-turbo': { input: 0.5, output: 1.5 },
  o1: { input: 15, output: 60 },
  o3: { input: 2, output: 8 },
  'o3-mini': { input: 1.1, output: 4.4 },
  'o4-mini': { input: 1.1, output: 4.4 },
  'claude-opus-4': { input: 15, output: 75 },
  'claude-sonnet-4': { input: 3, output: 15 },
  'claude-3-7-sonnet': { input: 3, output: 15 },
  'claude-3-5-sonnet': { input: 3, output: 15 },
  'claude-3-5-haiku': { input: 0.8, output: 4 },
  'deepseek-chat': { input: 0.27, output: 1.1 },
  'deepseek-reasoner': { input: 0.55, output: 2.19 },
  'gemini-2.0-flash': { input: 0.1, output: 0.4 },
  'gemini-1.5-flash': { input: 0.075, output: 0.3 },
  'gemini-1.5-pro': { input: 1.25, output: 5 },
  'mistral-large': { input: 2, output: 6 },
  'mistral-small': { input: 0.2, output: 0.6 },
  offline: { input: 0, output: 0 },
  scripted: { input: 0, output: 0 },
});

/**
 * The model id a client's name stands for: `openai:gpt-4o-mini` → `gpt-4o-mini` (the provider
 * prefix is dropped), anything else as it is.
 */
export function modelIdOf(name: string): string {
  const colon = name.indexOf(':');
  return colon > 0 ? name.slice(colon + 1) : name;
}

/**
 * What may follow a default price's id in the id of a snapshot of the same model: a date
 * (`2024-07-18`, `20241022`), a version number (`002`) or `latest`. Anything else (`o3-pro`,
 * `gpt-4o-audio-preview`) is another model, often a dearer one.
 */
const SNAPSHOT = /^(?:\d+(?:-\d+)*|latest)$/;

/**
 * The price of `model` (a client's name or a model id): the run's own table first, then the
 * defaults; in each, the exact id, then the longest id the model's starts with followed by `-`
 * (so a dated `gpt-4o-mini-2024-07-18` costs what `gpt-4o-mini` does). A default stands only for
 * its snapshots (a date, a version number or `latest` after the `-`): `o3-pro` is not priced as
 * `o3`. Null when neither names it.
 */
export function priceFor(model: string, own: Readonly<PriceTable> | undefined): ModelPrice | null {
  const id = modelIdOf(model);
  return lookup(own, model, false) ?? lookup(own, id, false) ?? lookup(DEFAULT_PRICES, id, true);
}

function lookup(table: Readonly<PriceTable> | undefined, id: string, snapshotsOnly: boolean): ModelPrice | null {
  if (table === undefined) return null;
  const exact = Object.hasOwn(table, id) ? table[id] : undefined;
  if (exact !== undefined) return exact;
  let best: string | null = null;
  for (const key of Object.keys(table)) {
    if (!id.startsWith(`${key}-`) || (best !== null && key.length <= best.length)) continue;
    if (snapshotsOnly && !SNAPSHOT.test(id.slice(key.length + 1))) continue;
    best = key;
  }
  return best === null ? null : table[best]!;
}

/** The cost in USD of `input` and `output` tokens at `price`. */
export function costOf(price: ModelPrice, input: number, output: number): number {
  return (input * price.input + output * price.output) / 1_000_000;
}
