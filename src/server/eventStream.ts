import type { ServerResponse } from 'node:http';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import type { RunHub } from './RunHub.js';
import type { RunSubscription } from './RunSubscription.js';

/** Options for {@link eventStream}. */
export interface EventStreamOptions {
  /** Deliver events after this `seq` (the client's `Last-Event-ID`; 0 for all). */
  afterSeq: number;
  /** Interval of the `: heartbeat` comments that keep proxies and clients from timing out (ms). */
  heartbeatMs: number;
  /**
   * Most bytes queued for this client and not yet taken by its socket. Once reached, the client is
   * paused: nothing more is queued for it until it has read some, and it then catches up from where
   * it was (see `RunSubscription`).
   */
  bufferBytes: number;
  /** Aborted when the client goes away. */
  signal?: AbortSignal;
  /**
   * The Node response of the request, when the server runs on Node (`@hono/node-server`): events
   * are then written to it directly, without a web stream between.
   */
  outgoing?: ServerResponse;
}

/** Where a client's bytes go: a Node response, or a web stream (in-process requests, other runtimes). */
interface SseSink {
  /** Queues bytes; false when the client's queue is full or the client is gone. */
  write(bytes: Uint8Array): boolean;
  /** True when nothing is queued (a heartbeat behind queued events would add nothing). */
  idle(): boolean;
  /** True once the client went away or the response was ended. */
  gone(): boolean;
  end(): void;
}

const encoder = new TextEncoder();
const HEARTBEAT = encoder.encode(': heartbeat\n\n');
const HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache, no-transform',
  connection: 'keep-alive',
  'x-accel-buffering': 'no',
};

/**
 * A run's events as a Server-Sent Events response: every event after `afterSeq` exactly once, in
 * order (stored ones first, then live), each with `id:` = seq so a reconnecting EventSource resumes
 * from `Last-Event-ID`; heartbeat comments between; and, when the run has finished, an `end` event
 * (`data: {"status": …}`) after which the stream closes. A run that waits keeps its stream open.
 *
 * Each event's message is the event's shared frame (serialised once for all subscribers). A client
 * that reads slower than events come holds at most `bufferBytes` (plus one event) queued here; past
 * that it is paused and skips live delivery, then reads what it missed from the run's live log and
 * the store once it has room, so it gets every event exactly once and never holds up the others.
 */
export function eventStream(hub: RunHub, runId: string, options: EventStreamOptions): Response {
  const { outgoing } = options;
  if (outgoing !== undefined) {
    outgoing.writeHead(200, HEADERS);
    const sink: SseSink = {
      write: (bytes) => {
        if (outgoing.destroyed || outgoing.writableEnded) return false;
        outgoing.write(bytes);
        return outgoing.writableLength < options.bufferBytes;
      },
      idle: () => outgoing.writableLength === 0,
      gone: () => outgoing.destroyed || outgoing.writableEnded,
      end: () => outgoing.end(),
    };
    const subscription = follow(hub, runId, options, sink);
    outgoing.on('drain', subscription.resume);
    outgoing.once('close', subscription.stop);
    return RESPONSE_ALREADY_SENT;
  }
  let following: ReturnType<typeof follow> | undefined;
  const body = new ReadableStream<Uint8Array>(
    {
      start(controller) {
        let ended = false;
        following = follow(hub, runId, options, {
          write: (bytes) => {
            if (ended) return false;
            try {
              controller.enqueue(bytes);
            } catch {
              ended = true;
              return false;
            }
            return (controller.desiredSize ?? 0) > 0;
          },
          idle: () => controller.desiredSize === options.bufferBytes,
          gone: () => ended,
          end: () => {
            if (ended) return;
            ended = true;
            try {
              controller.close();
            } catch {
              // Already closed by the client.
            }
          },
        });
      },
      // The client read enough to have room again.
      pull: () => following?.resume(),
      cancel: () => following?.stop(),
    },
    { highWaterMark: options.bufferBytes, size: (chunk) => chunk.byteLength },
  );
  return new Response(body, { headers: HEADERS });
}

/** Subscribes the sink to the run's events; `resume` when it has room again, `stop` when the client left. */
function follow(hub: RunHub, runId: string, options: EventStreamOptions, sink: SseSink): { resume(): void; stop(): void } {
  let open = true;
  let subscription: RunSubscription | undefined;
  const send = (bytes: Uint8Array): boolean => {
    if (!open) return false;
    const room = sink.write(bytes);
    if (!room && sink.gone()) stop();
    return room;
  };
  const close = () => {
    if (!open) return;
    stop();
    sink.end();
  };
  const heartbeat = setInterval(() => {
    if (sink.idle()) send(HEARTBEAT);
  }, options.heartbeatMs);
  heartbeat.unref();
  function stop() {
    if (!open) return;
    open = false;
    clearInterval(heartbeat);
    subscription?.close();
    options.signal?.removeEventListener('abort', stop);
  }
  options.signal?.addEventListener('abort', stop, { once: true });
  send(encoder.encode(`retry: 1000\n: subscribed to ${runId} after ${options.afterSeq}\n\n`));
  subscription = hub.subscribe(runId, options.afterSeq, {
    deliver: (event) => send(event.frame),
    finished: (status) => {
      send(encoder.encode(`event: end\ndata: ${JSON.stringify({ status })}\n\n`));
      close();
    },
    failed: (error) => {
      send(encoder.encode(`event: error\ndata: ${JSON.stringify({ message: `reading the run's events failed: ${(error as Error).message ?? String(error)}` })}\n\n`));
      close();
    },
  });
  return { resume: () => subscription?.resume(), stop };
}
