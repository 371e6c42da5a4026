import { SwitchboardError } from './SwitchboardError.js';

/** Why a run's model choice was refused: a name not offered, or no choice offered at all. */
export type ModelChoiceErrorCode = 'unknown_model' | 'model_not_offered';

/**
 * A run named a model it cannot run on, before anything ran or was stored: `unknown_model` when
 * the name is not one the graphs module (or the graph) offers, the message listing the known
 * ones; `model_not_offered` when there is no choice to make (the graphs module exports no
 * `models`, or the graph runs no node on a chosen model), so the name would be ignored. The CLI
 * exits 2 on it (`--model`); the HTTP API answers 400 (`POST /api/runs` `model`).
 */
export class ModelChoiceError extends SwitchboardError {
  override readonly name = 'ModelChoiceError';

  constructor(code: ModelChoiceErrorCode, message: string, cause?: unknown) {
    super(message, { code, fault: 'user', retryable: false, cause });
  }
}
