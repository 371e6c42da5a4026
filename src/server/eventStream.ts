import type { ServerResponse } from 'node:http';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import type { RunHub } from './RunHub.js';
import type { RunSubscription } from './RunSubscription.js';
import type { OutEvent } from './OutEvent.js';

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
  /**
   * How long a client may leave bytes queued for it without its connection taking any (ms): past
   * that it is dropped (its connection closed), so a client that stopped reading holds no memory
   * for good. An EventSource reconnects by itself and resumes from `Last-Event-ID`.
   */
  stallMs: number;
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
  /** Queues an event's shared bytes; false as for {@link write}. */
  event(event: OutEvent): boolean;
  /** True when nothing is queued (a heartbeat behind queued events would add nothing). */
  idle(): boolean;
  /** True once the client went away or the response was ended. */
  gone(): boolean;
  /** Bytes the client's connection has taken so far (handed to it, less what is still queued). */
  taken(): number;
  end(): void;
  /** Closes the connection of a client that stopped reading, with what is queued for it. */
  drop(): void;
}

const encoder = new TextEncoder();
const HEARTBEAT = encoder.encode(': heartbeat\n\n');
const CRLF = Buffer.from('\r\n');

/** Bytes as one HTTP/1.1 chunk. */
function chunkOf(bytes: Uint8Array): Uint8Array {
  return Buffer.concat([Buffer.from(`${bytes.length.toString(16)}\r\n`), bytes, CRLF]);
}
/** The response headers of an event stream (also what a HEAD request of one is answered with). */
export const EVENT_STREAM_HEADERS = {
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
  const socket = outgoing?.socket;
  if (outgoing !== undefined && socket != null) {
    outgoing.writeHead(200, EVENT_STREAM_HEADERS);
    outgoing.flushHeaders();
    // The body goes to the socket as is: each event's bytes are already one HTTP chunk, shared by
    // every client, so a client costs one socket write per event (the writes of a tick go out as one).
    const chunked = outgoing.chunkedEncoding;
    const uncork = () => socket.uncork();
    const gone = () => outgoing.destroyed || outgoing.writableEnded || socket.destroyed;
    let resume = (): void => undefined;
    let handed = 0;
    const raw = (bytes: Uint8Array): boolean => {
      if (gone()) return false;
      handed += bytes.length;
      if (socket.writableCorked === 0) {
        socket.cork();
        process.nextTick(uncork);
      }
      if (socket.writableLength + bytes.length < options.bufferBytes) {
        socket.write(bytes);
        return true;
      }
      // Full: the client is paused until its socket has taken these bytes. The socket emits 'drain'
      // only after a write it refused (past its own high-water mark, 16 KiB or more): with a smaller
      // buffer, this write's callback is what says there is room again.
      socket.write(bytes, () => resume());
      return socket.writableLength < options.bufferBytes;
    };
    const sink: SseSink = {
      write: (bytes) => raw(chunked ? chunkOf(bytes) : bytes),
      event: (event) => raw(chunked ? event.chunk : event.frame),
      idle: () => socket.writableLength === 0,
      gone,
      taken: () => handed - socket.writableLength,
      end: () => outgoing.end(),
      drop: () => socket.destroy(),
    };
    const following = follow(hub, runId, options, sink);
    resume = following.resume;
    socket.on('drain', following.resume);
    outgoing.once('close', () => {
      socket.off('drain', following.resume);
      following.release();
    });
    return RESPONSE_ALREADY_SENT;
  }
  let following: ReturnType<typeof follow> | undefined;
  const body = new ReadableStream<Uint8Array>(
    {
      start(controller) {
        let ended = false;
        let handed = 0;
        following = follow(hub, runId, options, {
          write: (bytes) => {
            if (ended) return false;
            try {
              controller.enqueue(bytes);
              handed += bytes.byteLength;
            } catch {
              ended = true;
              return false;
            }
            return (controller.desiredSize ?? 0) > 0;
          },
          event(event) {
            return this.write(event.frame);
          },
          idle: () => controller.desiredSize === options.bufferBytes,
          gone: () => ended,
          taken: () => handed - (options.bufferBytes - (controller.desiredSize ?? options.bufferBytes)),
          drop: () => {
            ended = true;
            try {
              controller.error(new Error('the client stopped reading its event stream'));
            } catch {
              // Already cancelled by the client.
            }
          },
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
      cancel: () => following?.release(),
    },
    { highWaterMark: options.bufferBytes, size: (chunk) => chunk.byteLength },
  );
  return new Response(body, { headers: EVENT_STREAM_HEADERS });
}

/** Subscribes the sink to the run's events; `resume` when it has room again, `stop` when the client left. */
function follow(hub: RunHub, runId: string, options: EventStreamOptions, sink: SseSink): { resume(): void; stop(): void; release(): void } {
  let open = true;
  let subscription: RunSubscription | undefined;
  const send = (bytes: Uint8Array): boolean => {
    if (!open) return false;
    const room = sink.write(bytes);
    if (!room && sink.gone()) stop();
    return room;
  };
  const deliver = (event: OutEvent): boolean => {
    if (!open) return false;
    const room = sink.event(event);
    if (!room && sink.gone()) stop();
    return room;
  };
  const close = () => {
    if (!open) return;
    stop();
    sink.end();
  };
  // A client with bytes queued whose connection took none of them for stallMs is dropped, also
  // after its stream ended (the end waits behind what is queued). Watched until the client is gone.
  let taken = 0;
  let stalledSince = Number.NaN;
  const watch = setInterval(() => {
    if (!open && sink.idle()) return clearInterval(watch);
    const now = sink.taken();
    if (sink.idle() || now > taken) stalledSince = Number.NaN;
    else if (Number.isNaN(stalledSince)) stalledSince = Date.now();
    else if (Date.now() - stalledSince >= options.stallMs) {
      // Nothing is watched after the drop: a web stream it errors is never idle again, and this
      // interval would otherwise drop it anew at every tick, for as long as the process lives.
      clearInterval(watch);
      stop();
      sink.drop();
    }
    taken = now;
  }, Math.max(10, Math.floor(options.stallMs / 4)));
  watch.unref();
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
    deliver: (event) => deliver(event),
    finished: (status) => {
      send(encoder.encode(`event: end\ndata: ${JSON.stringify({ status })}\n\n`));
      // Ending a response costs more than writing to it: with many clients, the run's last events
      // go out to all of them first (at the end of this tick), and the responses end after.
      setImmediate(close);
    },
    failed: (error) => {
      send(encoder.encode(`event: error\ndata: ${JSON.stringify({ message: `reading the run's events failed: ${(error as Error).message ?? String(error)}` })}\n\n`));
      close();
    },
  });
  return {
    resume: () => subscription?.resume(),
    stop,
    // The client's connection closed: nothing is left to watch.
    release: () => {
      stop();
      clearInterval(watch);
    },
  };
}
