import { raceAbort } from './raceAbort.js';
import type { ModelClient, ModelRequest } from '../model/ModelClient.js';
import { ModelResponse } from '../model/ModelMessage.js';
import { ModelError } from '../errors/ModelError.js';
import { formatZodError } from '../errors/formatZodError.js';

/** Checks what a model client returned, so a broken custom client fails with a clear message. */
function checked(model: ModelClient, value: unknown): ModelResponse {
  const parsed = ModelResponse.safeParse(value);
  if (parsed.success) return parsed.data;
  throw new ModelError(
    `model client "${model.name}" returned an invalid response (${formatZodError(parsed.error)}); ` +
      'return { text, toolCalls: [{ id, name, arguments }], usage }',
    { code: 'model_error', fault: 'system', retryable: false },
  );
}

/**
 * One model turn: `complete`, or `stream` with each text delta passed to `onDelta`. Rejects with
 * an `AbortedError` as soon as the signal aborts, even if the client ignores it.
 */
export async function callModel(
  model: ModelClient,
  request: ModelRequest,
  streaming: boolean,
  onDelta: (text: string) => void,
): Promise<ModelResponse> {
  const signal = request.signal;
  if (!streaming) return checked(model, await raceAbort(Promise.resolve().then(() => model.complete(request)), signal));
  const iterator = model.stream(request)[Symbol.asyncIterator]();
  let response: unknown;
  try {
    for (;;) {
      const step = await raceAbort(iterator.next(), signal);
      if (step.done) break;
      if (step.value.type === 'delta') onDelta(step.value.text);
      else if (step.value.type === 'response') response = step.value.response;
    }
  } finally {
    if (signal?.aborted) void Promise.resolve(iterator.return?.()).catch(() => {});
  }
  if (response === undefined) {
    throw new ModelError(`model client "${model.name}" ended its stream without a { type: 'response' } event`, {
      code: 'model_error',
      fault: 'system',
      retryable: false,
    });
  }
  return checked(model, response);
}
