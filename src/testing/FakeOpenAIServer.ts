import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { splitTokens } from '../model/splitTokens.js';

/** A successful scripted completion: text and/or tool calls (`arguments` as an object or raw text). */
export interface FakeAnswer {
  text?: string | null;
  toolCalls?: Array<{ id?: string; name: string; arguments: string | Record<string, unknown> }>;
  usage?: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
  /** When streamed, split tool-call arguments into pieces of this many characters (default 4). */
  argumentChunkSize?: number;
  /** Serve this reply this many times (default 1). */
  repeat?: number;
  /**
   * Never finish this reply: `'headers'` sends nothing at all; `'body'` sends the headers and part
   * of the body (streamed: the first `stallAfterChunks` chunks) and then holds the connection open.
   */
  stall?: 'headers' | 'body';
  /** With `stall: 'body'` on a streamed reply: how many chunks are sent first (default 2). */
  stallAfterChunks?: number;
}

/** A scripted HTTP error. 429 and 5xx carry `retry-after-ms: 1` so the SDK retries without waiting. */
export interface FakeFailure {
  status: number;
  message?: string;
  headers?: Record<string, string>;
  repeat?: number;
}

/** One scripted reply, or a function of the request body that makes one. */
export type FakeReply = FakeAnswer | FakeFailure | ((body: Record<string, unknown>) => FakeAnswer | FakeFailure);

/** A request the server received. */
export interface FakeRequest {
  path: string;
  body: Record<string, unknown>;
  /** Whether an `Authorization` header was sent (its value is never kept). */
  authorized: boolean;
}

/** A running fake server: point `new OpenAI({ baseURL })` at `baseURL`. */
export interface FakeOpenAIServer {
  /** `http://127.0.0.1:<port>/v1` */
  readonly baseURL: string;
  readonly requests: FakeRequest[];
  /** Requests that found no scripted reply (answered 500 with `x-should-retry: false`). */
  readonly unexpected: number;
  /** Replies not served yet. */
  readonly pending: number;
  /** Appends replies to the script. */
  enqueue(...replies: FakeReply[]): void;
  close(): Promise<void>;
}

const isFailure = (reply: FakeAnswer | FakeFailure): reply is FakeFailure => 'status' in reply;

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

function toolCallsOf(answer: FakeAnswer, turn: number) {
  return (answer.toolCalls ?? []).map((call, i) => ({
    id: call.id ?? `call_fake_${turn}_${i + 1}`,
    name: call.name,
    arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments),
  }));
}

function completion(answer: FakeAnswer, model: string, turn: number) {
  const calls = toolCallsOf(answer, turn);
  return {
    id: `chatcmpl-fake-${turn}`,
    object: 'chat.completion',
    created: 0,
    model,
    choices: [
      {
        index: 0,
        finish_reason: calls.length > 0 ? 'tool_calls' : 'stop',
        message: {
          role: 'assistant',
          content: answer.text ?? null,
          ...(calls.length > 0 ? { tool_calls: calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } })) } : {}),
        },
      },
    ],
    usage: answer.usage ?? { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
  };
}

function streamChunks(answer: FakeAnswer, model: string, turn: number, includeUsage: boolean): unknown[] {
  const base = { id: `chatcmpl-fake-${turn}`, object: 'chat.completion.chunk', created: 0, model };
  const chunk = (delta: unknown, finish: string | null = null) => ({ ...base, choices: [{ index: 0, delta, finish_reason: finish }] });
  const chunks: unknown[] = [chunk({ role: 'assistant', content: '' })];
  for (const piece of splitTokens(answer.text ?? '')) chunks.push(chunk({ content: piece }));
  const size = answer.argumentChunkSize ?? 4;
  toolCallsOf(answer, turn).forEach((call, index) => {
    chunks.push(chunk({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }] }));
    for (let at = 0; at < call.arguments.length; at += size) {
      chunks.push(chunk({ tool_calls: [{ index, function: { arguments: call.arguments.slice(at, at + size) } }] }));
    }
  });
  chunks.push(chunk({}, (answer.toolCalls ?? []).length > 0 ? 'tool_calls' : 'stop'));
  if (includeUsage) chunks.push({ ...base, choices: [], usage: answer.usage ?? { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } });
  return chunks;
}

async function readBody(req: IncomingMessage): Promise<Record<string, unknown>> {
  const parts: Buffer[] = [];
  for await (const part of req) parts.push(part as Buffer);
  try {
    const parsed: unknown = JSON.parse(Buffer.concat(parts).toString('utf8'));
    return parsed !== null && typeof parsed === 'object' ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/**
 * Starts an OpenAI-compatible chat completions server on 127.0.0.1 (a free port) that answers from
 * a script, streamed (SSE, tool-call arguments in fragments) when the request asks for it. Tests
 * point the real `openai` client at it, so no test touches the internet.
 *
 * @example
 * const server = await startFakeOpenAIServer([{ status: 429 }, { text: 'Hello!' }]);
 * const model = new OpenAIChatModel({ model: 'gpt-test', baseURL: server.baseURL, apiKey: 'test' });
 * await server.close();
 */
export async function startFakeOpenAIServer(replies: FakeReply[] = []): Promise<FakeOpenAIServer> {
  const queue: Array<{ reply: FakeReply; left: number }> = [];
  const requests: FakeRequest[] = [];
  let unexpected = 0;
  const enqueue = (...more: FakeReply[]) => {
    for (const reply of more) queue.push({ reply, left: typeof reply === 'function' ? 1 : Math.max(1, reply.repeat ?? 1) });
  };
  enqueue(...replies);

  const server = createServer((req, res) => {
    void (async () => {
      const body = await readBody(req);
      const path = req.url ?? '/';
      requests.push({ path, body, authorized: typeof req.headers.authorization === 'string' });
      if (req.method !== 'POST' || !path.endsWith('/chat/completions')) {
        sendJson(res, 404, { error: { message: `fake server: no route ${req.method} ${path}`, type: 'not_found' } });
        return;
      }
      const head = queue[0];
      if (head === undefined) {
        unexpected += 1;
        sendJson(res, 500, { error: { message: `fake server: no scripted reply left for request ${requests.length}`, type: 'script_exhausted' } }, { 'x-should-retry': 'false' });
        return;
      }
      head.left -= 1;
      if (head.left === 0) queue.shift();
      const reply = typeof head.reply === 'function' ? head.reply(body) : head.reply;
      if (isFailure(reply)) {
        const retryHint: Record<string, string> = reply.status === 429 || reply.status >= 500 ? { 'retry-after-ms': '1' } : {};
        sendJson(res, reply.status, { error: { message: reply.message ?? `fake failure ${reply.status}`, type: 'fake_error' } }, { ...retryHint, ...reply.headers });
        return;
      }
      // A stalled reply is left open; close() ends its connection.
      if (reply.stall === 'headers') return;
      const model = typeof body['model'] === 'string' ? body['model'] : 'fake-model';
      const turn = requests.length;
      if (body['stream'] !== true) {
        if (reply.stall === 'body') {
          const json = JSON.stringify(completion(reply, model, turn));
          res.writeHead(200, { 'content-type': 'application/json' });
          res.write(json.slice(0, Math.floor(json.length / 2)));
          return;
        }
        sendJson(res, 200, completion(reply, model, turn));
        return;
      }
      const options = body['stream_options'] as { include_usage?: boolean } | undefined;
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
      let chunks = streamChunks(reply, model, turn, options?.include_usage === true);
      if (reply.stall === 'body') chunks = chunks.slice(0, reply.stallAfterChunks ?? 2);
      for (const chunk of chunks) res.write(`data: ${JSON.stringify(chunk)}\n\n`);
      if (reply.stall !== 'body') res.end('data: [DONE]\n\n');
    })().catch((error: unknown) => {
      if (!res.headersSent) sendJson(res, 500, { error: { message: `fake server failed: ${String(error)}` } }, { 'x-should-retry': 'false' });
      else res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    get unexpected() {
      return unexpected;
    },
    get pending() {
      return queue.reduce((sum, entry) => sum + entry.left, 0);
    },
    enqueue,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
