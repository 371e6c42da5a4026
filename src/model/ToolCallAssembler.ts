import type { ToolCallDeltaWire } from './ChatCompletionWire.js';
import type { ModelToolCall } from './ModelMessage.js';

/**
 * Rebuilds tool calls from streamed fragments. A server sends the id and name of call `index`
 * once, then its arguments in pieces; fragments of several calls may interleave.
 */
export class ToolCallAssembler {
  readonly #calls = new Map<number, { id: string; name: string; arguments: string }>();

  /** Adds one fragment. */
  add(delta: ToolCallDeltaWire): void {
    let call = this.#calls.get(delta.index);
    if (call === undefined) {
      call = { id: '', name: '', arguments: '' };
      this.#calls.set(delta.index, call);
    }
    if (delta.id) call.id = delta.id;
    // OpenAI sends the name once; some compatible servers repeat it in every fragment, others split it.
    if (delta.function?.name) call.name += call.name === delta.function.name ? '' : delta.function.name;
    if (delta.function?.arguments) call.arguments += delta.function.arguments;
  }

  /** The calls in index order; a call whose server sent no id gets `call_<index>`. */
  finish(): ModelToolCall[] {
    return [...this.#calls.entries()]
      .sort(([a], [b]) => a - b)
      .map(([index, call]) => ({ id: call.id || `call_${index}`, name: call.name, arguments: call.arguments }));
  }
}
