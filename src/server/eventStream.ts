import type { RunHub } from './RunHub.js';
import type { OutEvent } from './OutEvent.js';
import type { RunSubscription } from './RunSubscription.js';

/** Options for {@link eventStream}. */
export interface EventStreamOptions {
  /** Deliver events after this `seq` (the client's `Last-Event-ID`; 0 for all). */
  afterSeq: number;
  /** Interval of the `: heartbeat` comments that keep proxies and clients from timing out (ms). */
  heartbeatMs: number;
  /** Aborted when the client goes away. */
  signal?: AbortSignal;
}

const encoder = new TextEncoder();

/** One SSE message for an event: `id` is its seq, `data` its JSON on one line. */
function message(event: OutEvent): string {
  return `id: ${event.seq}\ndata: ${JSON.stringify(event.data)}\n\n`;
}

/**
 * A run's events as a Server-Sent Events response: every event after `afterSeq` exactly once, in
 * order (stored ones first, then live), each with `id:` = seq so a reconnecting EventSource resumes
 * from `Last-Event-ID`; heartbeat comments between; and, when the run has finished, an `end` event
 * (`data: {"status": …}`) after which the stream closes. A run that waits keeps its stream open.
 */
export function eventStream(hub: RunHub, runId: string, options: EventStreamOptions): Response {
  let cleanup = () => undefined as void;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      let open = true;
      let subscription: RunSubscription | undefined;
      const send = (text: string) => {
        if (!open) return;
        try {
          controller.enqueue(encoder.encode(text));
        } catch {
          stop();
        }
      };
      const close = () => {
        if (!open) return;
        stop();
        try {
          controller.close();
        } catch {
          // Already closed by the client.
        }
      };
      const heartbeat = setInterval(() => send(': heartbeat\n\n'), options.heartbeatMs);
      heartbeat.unref();
      send(`retry: 1000\n: subscribed to ${runId} after ${options.afterSeq}\n\n`);
      subscription = hub.subscribe(runId, options.afterSeq, {
        deliver: (event) => send(message(event)),
        finished: (status) => {
          send(`event: end\ndata: ${JSON.stringify({ status })}\n\n`);
          close();
        },
        failed: (error) => {
          send(`event: error\ndata: ${JSON.stringify({ message: `reading the run's events failed: ${(error as Error).message ?? String(error)}` })}\n\n`);
          close();
        },
      });
      function stop() {
        open = false;
        clearInterval(heartbeat);
        subscription?.close();
        options.signal?.removeEventListener('abort', stop);
      }
      options.signal?.addEventListener('abort', stop, { once: true });
      cleanup = stop;
    },
    cancel() {
      cleanup();
    },
  });
  return new Response(body, {
    headers: {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    },
  });
}
