import { z } from 'zod';
import { JSON_SCHEMA_VERSION } from './jsonSchemaVersion.js';

/**
 * An error as the CLI prints it under `--json` (on stderr) and the HTTP API answers it: a code
 * naming what is wrong (`usage`, `run_not_found`, `invalid_input`, …) and a one-line message saying
 * how to fix it; `stack` only with `--debug`.
 */
export const ErrorJson = z.object({
  schemaVersion: z.literal(JSON_SCHEMA_VERSION),
  error: z.object({
    code: z.string().min(1).describe('What is wrong, as a stable identifier'),
    message: z.string().describe('What was expected and how to fix it, on one line'),
    retryable: z.boolean().optional().describe('True when the same request may succeed later'),
    stack: z.string().optional().describe('Stacks of the error and its causes (CLI --debug only)'),
  }),
});
/** An error as the CLI and the HTTP API print it. */
export type ErrorJson = z.infer<typeof ErrorJson>;

/** The {@link ErrorJson} of a code and message. */
export function errorJson(code: string, message: string, extra: { retryable?: boolean; stack?: string } = {}): ErrorJson {
  return { schemaVersion: JSON_SCHEMA_VERSION, error: { code, message, ...extra } };
}
