import { Buffer } from 'node:buffer';
import { endianness } from 'node:os';

/** A sparse feature vector: feature name → value. */
export type SparseVector = ReadonlyMap<string, number>;

/** Options for {@link SoftmaxClassifier.train}. */
export interface SoftmaxTrainOptions {
  /** Passes over the examples (default 40). */
  epochs?: number;
  /** Adagrad step size (default 0.5). */
  learningRate?: number;
  /** L2 penalty per step (default 1e-4). */
  l2?: number;
  /** Seed of the example order (default 1), so training is deterministic. */
  seed?: number;
}

/**
 * A trained classifier as plain JSON (see {@link SoftmaxClassifier.toJSON}). The numbers are kept
 * bit for bit, as bytes in base64: about 11 bytes a weight instead of about 20 as decimal text, and
 * read without parsing a number per weight (the compiled CLI reads them at every start).
 */
export interface SoftmaxClassifierData<L extends string> {
  labels: L[];
  /** Each row's feature, as its index in the feature names the data is written with (little-endian uint32, base64). */
  rows: string;
  /** The weights, `labels.length` per row in row order (little-endian float64, base64). */
  weights: string;
  bias: number[];
  temperature: number;
}

/** A small seeded PRNG (mulberry32). */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const BIG_ENDIAN = endianness() === 'BE';

/** The numbers' bytes, little-endian whatever the platform, in base64. */
function encode(values: Float64Array | Uint32Array): string {
  const bytes = Buffer.from(values.buffer, values.byteOffset, values.byteLength);
  if (!BIG_ENDIAN) return bytes.toString('base64');
  const copy = Buffer.from(bytes);
  return (values.BYTES_PER_ELEMENT === 8 ? copy.swap64() : copy.swap32()).toString('base64');
}

/** The bytes of {@link encode} in an aligned buffer of their own, in the platform's byte order. */
function decode(text: string, width: 4 | 8): ArrayBuffer {
  const bytes = Buffer.from(text, 'base64');
  if (bytes.byteLength % width !== 0) throw new RangeError(`SoftmaxClassifier.fromJSON: ${bytes.byteLength} bytes are not a whole number of ${width}-byte values`);
  if (BIG_ENDIAN) {
    if (width === 8) bytes.swap64();
    else bytes.swap32();
  }
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
}

/**
 * Multinomial logistic regression over sparse features, trained with Adagrad; deterministic for a
 * given seed. `predict` returns a probability per label, sharpened or softened by `temperature`.
 *
 * @example
 * const model = SoftmaxClassifier.train([{ features: new Map([['w:hi', 1]]), label: 'general' }], ['general', 'rag']);
 * model.predict(new Map([['w:hi', 1]])); // { general: 0.9…, rag: 0.0… }
 */
export class SoftmaxClassifier<L extends string> {
  readonly labels: readonly L[];
  /** Feature name → row in `#weights` (k weights per feature). */
  readonly #index: Map<string, number>;
  readonly #weights: Float64Array;
  readonly #bias: Float64Array;
  temperature = 1;

  private constructor(labels: readonly L[], index: Map<string, number>, weights: Float64Array, bias: Float64Array) {
    this.labels = labels;
    this.#index = index;
    this.#weights = weights;
    this.#bias = bias;
  }

  /** Trains on labelled examples. */
  static train<L extends string>(examples: ReadonlyArray<{ features: SparseVector; label: L }>, labels: readonly L[], options: SoftmaxTrainOptions = {}): SoftmaxClassifier<L> {
    const k = labels.length;
    const index = new Map<string, number>();
    // Features become row numbers once, so the passes below touch only typed arrays.
    const rows = examples.map((e) => {
      const ids = new Int32Array(e.features.size);
      const values = new Float64Array(e.features.size);
      let i = 0;
      for (const [name, value] of e.features) {
        let id = index.get(name);
        if (id === undefined) index.set(name, (id = index.size));
        ids[i] = id;
        values[i++] = value;
      }
      const target = labels.indexOf(e.label);
      if (target === -1) throw new RangeError(`SoftmaxClassifier.train: label "${e.label}" is not one of ${labels.join(', ')}`);
      return { ids, values, target };
    });
    const weights = new Float64Array(index.size * k);
    const squares = new Float64Array(index.size * k).fill(1e-8);
    const bias = new Float64Array(k);
    const biasSquares = new Float64Array(k).fill(1e-8);
    const rate = options.learningRate ?? 0.5;
    const l2 = options.l2 ?? 1e-4;
    const next = random(options.seed ?? 1);
    const order = rows.map((_, i) => i);
    const probs = new Float64Array(k);
    for (let epoch = 0; epoch < (options.epochs ?? 40); epoch++) {
      for (let i = order.length - 1; i > 0; i--) {
        const j = Math.floor(next() * (i + 1));
        [order[i], order[j]] = [order[j]!, order[i]!];
      }
      for (const r of order) {
        const { ids, values, target } = rows[r]!;
        softmax(weights, bias, ids, values, k, 1, probs);
        for (let c = 0; c < k; c++) {
          const g = probs[c]! - (c === target ? 1 : 0);
          biasSquares[c]! += g * g;
          bias[c]! -= (rate * g) / Math.sqrt(biasSquares[c]!);
        }
        for (let f = 0; f < ids.length; f++) {
          const base = ids[f]! * k;
          for (let c = 0; c < k; c++) {
            const g = (probs[c]! - (c === target ? 1 : 0)) * values[f]! + l2 * weights[base + c]!;
            squares[base + c]! += g * g;
            weights[base + c]! -= (rate * g) / Math.sqrt(squares[base + c]!);
          }
        }
      }
    }
    return new SoftmaxClassifier(labels, index, weights, bias);
  }

  /**
   * The trained weights as plain JSON; {@link SoftmaxClassifier.fromJSON} gives back a classifier
   * that predicts exactly the same. Feature names are written once for several classifiers: each
   * is looked up in `names` (name → index), and the ones not there yet are added at its end.
   */
  toJSON(names: Map<string, number>): SoftmaxClassifierData<L> {
    const rows = Uint32Array.from(this.#index.keys(), (name) => {
      let at = names.get(name);
      if (at === undefined) names.set(name, (at = names.size));
      return at;
    });
    return { labels: [...this.labels], rows: encode(rows), weights: encode(this.#weights), bias: [...this.#bias], temperature: this.temperature };
  }

  /** A classifier from {@link SoftmaxClassifier.toJSON}'s output and the feature names it was written with (in index order). */
  static fromJSON<L extends string>(data: SoftmaxClassifierData<L>, names: readonly string[]): SoftmaxClassifier<L> {
    const rows = new Uint32Array(decode(data.rows, 4));
    const weights = new Float64Array(decode(data.weights, 8));
    if (weights.length !== rows.length * data.labels.length || rows.some((at) => at >= names.length)) {
      throw new RangeError(`SoftmaxClassifier.fromJSON: ${rows.length} rows of ${data.labels.length} labels do not match ${weights.length} weights and ${names.length} feature names`);
    }
    const model = new SoftmaxClassifier(data.labels, new Map(Array.from(rows, (at, row) => [names[at]!, row])), weights, Float64Array.from(data.bias));
    model.temperature = data.temperature;
    return model;
  }

  /** The probability of each label for these features. */
  predict(features: SparseVector): Record<L, number> {
    const ids: number[] = [];
    const values: number[] = [];
    for (const [name, value] of features) {
      const id = this.#index.get(name);
      if (id !== undefined) {
        ids.push(id);
        values.push(value);
      }
    }
    const probs = softmax(this.#weights, this.#bias, ids, values, this.labels.length, this.temperature, new Float64Array(this.labels.length));
    return Object.fromEntries(this.labels.map((label, c) => [label, probs[c]!])) as Record<L, number>;
  }
}

/** Writes the softmax of the scores of one example into `out`. */
function softmax(weights: Float64Array, bias: Float64Array, ids: ArrayLike<number>, values: ArrayLike<number>, k: number, temperature: number, out: Float64Array): Float64Array {
  for (let c = 0; c < k; c++) out[c] = bias[c]!;
  for (let f = 0; f < ids.length; f++) {
    const base = ids[f]! * k;
    for (let c = 0; c < k; c++) out[c]! += weights[base + c]! * values[f]!;
  }
  let max = -Infinity;
  for (let c = 0; c < k; c++) max = Math.max(max, out[c]! / temperature);
  let sum = 0;
  for (let c = 0; c < k; c++) {
    out[c] = Math.exp(out[c]! / temperature - max);
    sum += out[c]!;
  }
  for (let c = 0; c < k; c++) out[c]! /= sum;
  return out;
}
