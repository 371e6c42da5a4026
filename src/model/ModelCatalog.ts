import { AgentDefinitionError } from '../errors/AgentDefinitionError.js';
import type { ModelClient } from './ModelClient.js';
import { describeValue } from '../graph/describeValue.js';

/** One model of a {@link ModelCatalog}: the name a run chooses it by, and the client. */
export interface ModelEntry {
  name: string;
  model: ModelClient;
}

/** The longest model name, in characters (as the customer-service ingest caps `metadata.model`). */
export const MAX_MODEL_NAME_LENGTH = 100;

const NAME = /^[A-Za-z0-9][A-Za-z0-9._:/@-]*$/;

/** What a model name must be, for error messages. */
export const MODEL_NAME_RULE = `use 1–${MAX_MODEL_NAME_LENGTH} letters, digits and . _ : / @ - (starting with a letter or digit)`;

/** What is wrong with a model name, as the end of a sentence about it ("is empty"); null for a valid name. */
export function modelNameProblem(name: string): string | null {
  if (name === '') return 'is empty';
  if (name.length > MAX_MODEL_NAME_LENGTH) return `is longer than ${MAX_MODEL_NAME_LENGTH} characters`;
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f-\u009f]/.test(name)) return 'contains a control character';
  if (/\s/.test(name)) return 'contains whitespace';
  if (!NAME.test(name)) return 'is not valid';
  return null;
}

/**
 * The models a run may choose from, by name; the first is the default. A graph built with one
 * (see `modelNode`) answers each run with the model named in its state under `runModel`, so one
 * process can run the same graph offline for one run and on a hosted model for the next.
 * `modelsFromEnv()` gives the catalog the environment configures.
 *
 * @example
 * const models = new ModelCatalog([{ name: 'offline', model: new OfflineModel() }, { name: 'gpt-4o-mini', model: hosted }]);
 * models.get('gpt-4o-mini'); // hosted
 * models.get();              // the OfflineModel (the first is the default)
 */
export class ModelCatalog {
  readonly #models: ReadonlyMap<string, ModelClient>;

  constructor(entries: readonly ModelEntry[]) {
    if (!Array.isArray(entries) || entries.length === 0) {
      throw new AgentDefinitionError('new ModelCatalog(entries): give at least one { name, model }; the first is the default');
    }
    const models = new Map<string, ModelClient>();
    for (const entry of entries) {
      const name: unknown = entry?.name;
      const problem = typeof name === 'string' ? modelNameProblem(name) : 'is not a string';
      if (problem !== null) throw new AgentDefinitionError(`new ModelCatalog: model name ${describeValue(name)} ${problem}; ${MODEL_NAME_RULE}`);
      if (models.has(name as string)) throw new AgentDefinitionError(`new ModelCatalog: the model name "${name as string}" is given twice; names must be unique`);
      if (typeof entry.model?.complete !== 'function' || typeof entry.model.stream !== 'function') {
        throw new AgentDefinitionError(`new ModelCatalog: model "${name}" is not a ModelClient (it needs complete and stream)`);
      }
      models.set(name as string, entry.model);
    }
    this.#models = models;
  }

  /** A catalog of one model, named by the client's own name (`offline`, `openai:gpt-4o-mini`). */
  static of(model: ModelClient): ModelCatalog {
    return new ModelCatalog([{ name: model.name, model }]);
  }

  /** The names, the default first. */
  get names(): string[] {
    return [...this.#models.keys()];
  }

  /** The name of the default model (the first). */
  get defaultName(): string {
    return this.names[0]!;
  }

  /** Whether a model goes by this name. */
  has(name: string): boolean {
    return this.#models.has(name);
  }

  /** The model named `name` (absent: the default); an unknown name is an `AgentDefinitionError` naming the known ones. */
  get(name?: string): ModelClient {
    const model = this.#models.get(name ?? this.defaultName);
    if (model === undefined) {
      throw new AgentDefinitionError(`no model named ${describeValue(name)} is configured; known models: ${this.names.join(', ')}`);
    }
    return model;
  }
}
