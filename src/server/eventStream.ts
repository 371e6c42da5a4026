import type { RunHub } from './RunHub.js';
import type { RunSubscription } from './RunSubscription.js';

/** Options for {@link eventStream}. */
export interface EventStreamOptions {
  /** Deliver events after this `seq` (the client's `Last-Event-ID`; 0 for all). */
  afterSeq: number;
  /** Interval of the `: heartbeat` comments that keep proxies and clients from timing out (ms). */
  heartbeatMs: number;
  /**
   * Most bytes queued for this client beyond what its connection already holds. Once reached, the
   * client is paused: nothing more is queued for it until it has read some, and it then catches up
   * from where it was (see `RunSubscription`).
   */
  bufferBytes: number;
  /** Aborted when the client goes away. */
  signal?: AbortSignal;
}

const encoder = new TextEncoder();
const HEARTBEAT = encoder.encode(': heartbeat\n\n');

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
  let cleanup = () => undefined as void;
  let subscription: RunSubscription | undefined;
  const body = new ReadableStream<Uint8Array>(
    {
      start(controller) {
        let open = true;
        /** Queues bytes; false when the client's queue is full (or the stream is gone). */
        const send = (bytes: Uint8Array): boolean => {
          if (!open) return false;
          try {
            controller.enqueue(bytes);
          } catch {
            stop();
            return false;
          }
          return (controller.desiredSize ?? 0) > 0;
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
        // A heartbeat only matters to an idle connection: behind queued events it would add nothing.
        const heartbeat = setInterval(() => {
          if (controller.desiredSize === options.bufferBytes) send(HEARTBEAT);
        }, options.heartbeatMs);
        heartbeat.unref();
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
        function stop() {
          open = false;
          clearInterval(heartbeat);
          subscription?.close();
          options.signal?.removeEventListener('abort', stop);
        }
        options.signal?.addEventListener('abort', stop, { once: true });
        cleanup = stop;
      },
      pull() {
        // The client read enough to have room again.
        subscription?.resume();
      },
      cancel() {
        cleanup();
      },
    },
    { highWaterMark: options.bufferBytes, size: (chunk) => chunk.byteLength },
  );
  return new Response(body, {
    headers: {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    },
  });
}
