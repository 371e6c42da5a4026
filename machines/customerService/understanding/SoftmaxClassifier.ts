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

/** A trained classifier as plain JSON (see {@link SoftmaxClassifier.toJSON}). */
export interface SoftmaxClassifierData<L extends string> {
  labels: L[];
  /** Feature names in row order. */
  features: string[];
  weights: number[];
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

  /** The trained weights as plain JSON; {@link SoftmaxClassifier.fromJSON} gives back a classifier that predicts exactly the same. */
  toJSON(): SoftmaxClassifierData<L> {
    return { labels: [...this.labels], features: [...this.#index.keys()], weights: [...this.#weights], bias: [...this.#bias], temperature: this.temperature };
  }

  /** A classifier from {@link SoftmaxClassifier.toJSON}'s output. */
  static fromJSON<L extends string>(data: SoftmaxClassifierData<L>): SoftmaxClassifier<L> {
    const model = new SoftmaxClassifier(data.labels, new Map(data.features.map((name, row) => [name, row])), Float64Array.from(data.weights), Float64Array.from(data.bias));
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
