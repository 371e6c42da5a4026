import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Ways an OpenAI-compatible server can fail a chat completion, each with the typed `ModelError`
 * code the run must fail with. A request picks its failure by carrying `[fail:<name>]` anywhere in
 * its body (the user message), so concurrent runs can each fail their own way.
 */
export const MODEL_FAILURES: Record<string, { code: 'model_error' | 'rate_limited' | 'model_retries_exhausted'; send: (res: ServerResponse) => void }> = {};

const json = (res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}) => {
  res.writeHead(status, { 'content-type': 'application/json', 'retry-after-ms': '1', ...headers });
  res.end(body);
};
const sse = (res: ServerResponse, ...events: string[]) => {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  for (const event of events) res.write(`data: ${event}\n\n`);
  res.end();
};
const chunk = (delta: unknown) => JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 0, model: 'm', choices: [{ index: 0, delta, finish_reason: null }] });

for (const status of [400, 401, 402, 403, 404, 405, 406, 410, 413, 415, 422, 451]) {
  MODEL_FAILURES[`http-${status}`] = { code: 'model_error', send: (res) => json(res, status, JSON.stringify({ error: { message: `refused with ${status}`, type: 'invalid_request_error' } })) };
}
for (const status of [408, 409, 500, 501, 502, 503, 504, 520, 529]) {
  MODEL_FAILURES[`http-${status}`] = { code: 'model_retries_exhausted', send: (res) => json(res, status, JSON.stringify({ error: { message: `unavailable ${status}` } })) };
}
MODEL_FAILURES['http-429'] = { code: 'rate_limited', send: (res) => json(res, 429, JSON.stringify({ error: { message: 'slow down', type: 'rate_limit' } })) };
MODEL_FAILURES['http-502-html'] = { code: 'model_retries_exhausted', send: (res) => json(res, 502, '<html><body>Bad gateway</body></html>', { 'content-type': 'text/html' }) };
MODEL_FAILURES['http-400-empty'] = { code: 'model_error', send: (res) => json(res, 400, '') };
MODEL_FAILURES['connection-reset'] = { code: 'model_retries_exhausted', send: (res) => res.socket?.destroy() };
MODEL_FAILURES['body-not-json'] = { code: 'model_error', send: (res) => json(res, 200, '{"id": "c1", "choices": [') };
MODEL_FAILURES['body-empty'] = { code: 'model_error', send: (res) => json(res, 200, '') };
MODEL_FAILURES['body-wrong-shape'] = { code: 'model_error', send: (res) => json(res, 200, JSON.stringify({ id: 'c1', choices: 'none' })) };
MODEL_FAILURES['body-no-choices'] = { code: 'model_error', send: (res) => json(res, 200, JSON.stringify({ id: 'c1', object: 'chat.completion', choices: [] })) };
MODEL_FAILURES['body-null-message'] = { code: 'model_error', send: (res) => json(res, 200, JSON.stringify({ id: 'c1', choices: [{ index: 0, message: null, finish_reason: 'stop' }] })) };
MODEL_FAILURES['body-bad-tool-call'] = {
  code: 'model_error',
  send: (res) => json(res, 200, JSON.stringify({ id: 'c1', choices: [{ index: 0, message: { role: 'assistant', content: null, tool_calls: [{ id: 'x', type: 'function' }] }, finish_reason: 'tool_calls' }] })),
};
MODEL_FAILURES['stream-not-json'] = { code: 'model_error', send: (res) => sse(res, '{not json') };
MODEL_FAILURES['stream-wrong-shape'] = { code: 'model_error', send: (res) => sse(res, JSON.stringify({ choices: 'none' }), '[DONE]') };
MODEL_FAILURES['stream-error-event'] = { code: 'model_error', send: (res) => sse(res, JSON.stringify({ error: { message: 'the model crashed mid-answer' } })) };
MODEL_FAILURES['stream-cut'] = {
  code: 'model_error',
  send: (res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(`data: ${chunk({ role: 'assistant', content: 'The answ' })}\n\n`);
    setTimeout(() => res.socket?.destroy(), 5);
  },
};
MODEL_FAILURES['stream-bad-tool-call'] = { code: 'model_error', send: (res) => sse(res, chunk({ tool_calls: [{ index: 'x', function: { arguments: 5 } }] }), '[DONE]') };

/** A running failing server: point `OPENAI_BASE_URL` at `baseURL`. */
export interface FailingModelServer {
  readonly baseURL: string;
  /** Requests received, by failure name. */
  readonly hits: Map<string, number>;
  close(): Promise<void>;
}

/** Starts a loopback server that fails every chat completion the way its `[fail:<name>]` marker says (unmarked: 400). */
export async function startFailingModelServer(): Promise<FailingModelServer> {
  const hits = new Map<string, number>();
  const server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (part: Buffer) => parts.push(part));
    req.on('end', () => {
      const name = /\[fail:([a-z0-9-]+)\]/.exec(Buffer.concat(parts).toString('utf8'))?.[1] ?? 'http-400';
      hits.set(name, (hits.get(name) ?? 0) + 1);
      (MODEL_FAILURES[name] ?? MODEL_FAILURES['http-400']!).send(res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    baseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    hits,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
