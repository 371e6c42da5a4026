import { beforeModelCall, recordModelUsage } from '../budget/BudgetMeter.js';
import { z } from 'zod';
import { ScriptMismatchError } from './ScriptMismatchError.js';
import type { ModelClient, ModelRequest, ModelStreamEvent } from '../model/ModelClient.js';
import type { ModelResponse, ModelToolCall } from '../model/ModelMessage.js';
import { ModelUsage } from '../model/ModelMessage.js';
import { splitTokens } from '../model/splitTokens.js';
import { formatZodError } from '../errors/formatZodError.js';

/** One scripted answer. */
export const ScriptedTurn = z
  .object({
    /** The answer text (null or absent: none). */
    text: z.string().nullable().optional(),
    /** Tool calls; `arguments` is an object (sent as JSON) or a raw string (sent as is, e.g. malformed JSON). */
    toolCalls: z
      .array(z.object({ name: z.string().min(1), arguments: z.union([z.string(), z.record(z.string(), z.unknown())]).default({}), id: z.string().optional() }).strict())
      .optional(),
    usage: ModelUsage.optional(),
    /** Streamed pieces of `text` (default: word by word). */
    chunks: z.array(z.string()).optional(),
    /** The exact tool names the request must offer, in any order. */
    expectTools: z.array(z.string()).optional(),
    /** The agent the request must come from. */
    expectAgent: z.string().optional(),
    /** Runs before the turn is answered (e.g. to abort the run or inspect the request). */
    before: z.custom<(request: ModelRequest) => void>((v) => typeof v === 'function').optional(),
    /** Answer by throwing this instead. */
    error: z.instanceof(Error).optional(),
    /** Never answer (until the request's signal aborts). */
    hang: z.boolean().optional(),
  })
  .strict();
/** One scripted answer. */
export type ScriptedTurn = z.input<typeof ScriptedTurn>;

function describeRequest(request: ModelRequest): string {
  const last = request.messages[request.messages.length - 1];
  const text = last === undefined ? '(no messages)' : `${last.role}: ${(last.content ?? '').slice(0, 80)}`;
  return `agent "${request.agent ?? '?'}", tools [${request.tools.map((t) => t.name).join(', ')}], last message ${text}`;
}

/**
 * A `ModelClient` for tests that plays scripted turns in order. It fails loudly: a call with no turn
 * left, or a turn whose `expectTools` / `expectAgent` do not match, throws `ScriptMismatchError`, and
 * `assertDone()` throws when turns were never consumed. Every request is kept in `requests`.
 *
 * @example
 * const model = new ScriptedModel([
 *   { toolCalls: [{ name: 'lookup_order', arguments: { id: '42' } }] },
 *   { text: 'Order 42 ships today.' },
 * ]);
 */
export class ScriptedModel implements ModelClient {
  readonly name = 'scripted';
  /** Every request received, in order. */
  readonly requests: ModelRequest[] = [];
  readonly #turns: z.output<typeof ScriptedTurn>[];
  #next = 0;

  constructor(turns: readonly ScriptedTurn[]) {
    this.#turns = turns.map((turn, i) => {
      const parsed = ScriptedTurn.safeParse(turn);
      if (!parsed.success) throw new ScriptMismatchError(`ScriptedModel turn ${i + 1} is invalid: ${formatZodError(parsed.error)}`);
      return parsed.data;
    });
  }

  /** Turns not played yet. */
  get remaining(): number {
    return this.#turns.length - this.#next;
  }

  /** Throws unless every scripted turn was played. */
  assertDone(): void {
    if (this.remaining === 0) return;
    const left = this.#turns.slice(this.#next).map((t, i) => `turn ${this.#next + i + 1} (${t.text ? `text "${t.text.slice(0, 40)}"` : `tools ${t.toolCalls?.map((c) => c.name).join(', ')}`})`);
    throw new ScriptMismatchError(`ScriptedModel: ${this.remaining} of ${this.#turns.length} scripted turns were never played: ${left.join('; ')}`);
  }

  /** Plays the next turn. */
  async complete(request: ModelRequest): Promise<ModelResponse> {
    beforeModelCall(this.name, request.signal);
    const { response } = await this.#play(request);
    recordModelUsage(this.name, response.usage);
    return response;
  }

  /** Plays the next turn, streaming its text in `chunks` (default: word by word). */
  async *stream(request: ModelRequest): AsyncIterable<ModelStreamEvent> {
    beforeModelCall(this.name, request.signal);
    const { response, chunks } = await this.#play(request);
    recordModelUsage(this.name, response.usage);
    for (const text of chunks) yield { type: 'delta', text };
    yield { type: 'response', response };
  }

  async #play(request: ModelRequest): Promise<{ response: ModelResponse; chunks: string[] }> {
    this.requests.push(request);
    const index = this.#next;
    const turn = this.#turns[index];
    if (turn === undefined) {
      throw new ScriptMismatchError(
        `ScriptedModel received request ${index + 1} (${describeRequest(request)}) but the script has only ${this.#turns.length} turns; add a turn or fix the loop`,
      );
    }
    this.#next += 1;
    const at = `ScriptedModel turn ${index + 1}`;
    if (turn.expectAgent !== undefined && request.agent !== turn.expectAgent) {
      throw new ScriptMismatchError(`${at}: expected a request from agent "${turn.expectAgent}", received one from "${request.agent}"`);
    }
    if (turn.expectTools !== undefined) {
      const got = request.tools.map((t) => t.name).sort();
      const want = [...turn.expectTools].sort();
      if (got.join(',') !== want.join(',')) {
        throw new ScriptMismatchError(`${at}: expected tools [${want.join(', ')}], the request offered [${got.join(', ')}]`);
      }
    }
    turn.before?.(request);
    if (turn.hang) {
      await new Promise<never>((_, reject) => {
        const fail = () => reject(new ScriptMismatchError(`${at} hung until its request was aborted`));
        if (request.signal?.aborted) fail();
        request.signal?.addEventListener('abort', fail, { once: true });
      });
    }
    if (turn.error !== undefined) throw turn.error;
    const toolCalls: ModelToolCall[] = (turn.toolCalls ?? []).map((call, i) => ({
      id: call.id ?? `call_scripted_${index + 1}_${i + 1}`,
      name: call.name,
      arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments),
    }));
    const text = turn.text ?? null;
    const response: ModelResponse = {
      text,
      toolCalls,
      usage: turn.usage ?? { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
      finishReason: toolCalls.length > 0 ? 'tool_calls' : 'stop',
      rawResponse: { scripted: true, turn: index + 1 },
    };
    return { response, chunks: turn.chunks ?? splitTokens(text ?? '') };
  }
}
