import type { AgentRequest, AgentResult } from './AgentNode.js';

/**
 * The handoff rule: a result's `handoff` value becomes the next input as it is; otherwise, when the result's `outputText` is a string (even `""`) the next node gets
 * `{ input: outputText }` with the current metadata; otherwise it gets the same request.
 */
export function nextRequest(current: AgentRequest, result: AgentResult | null): AgentRequest {
  if (result !== null && result.handoff !== undefined) {
    return current.metadata === undefined ? { input: result.handoff } : { input: result.handoff, metadata: current.metadata };
  }
  const text = result?.outputText;
  if (text === null || text === undefined) return current;
  return current.metadata === undefined ? { input: text } : { input: text, metadata: current.metadata };
}
