/** One Server-Sent Events message as a client sees it. */
export interface SseMessage {
  id?: string;
  event: string;
  data: string;
}

/**
 * Reads an SSE response incrementally: `next()` resolves with the next message (comments are
 * counted in `comments`, not returned), or null when the stream ended. `close()` disconnects.
 */
export class SseReader {
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;
  readonly #decoder = new TextDecoder();
  #buffer = '';
  comments: string[] = [];

  constructor(response: Response) {
    if (response.body === null) throw new Error(`no body (status ${response.status})`);
    this.#reader = response.body.getReader();
  }

  async next(): Promise<SseMessage | null> {
    for (;;) {
      const end = this.#buffer.indexOf('\n\n');
      if (end >= 0) {
        const block = this.#buffer.slice(0, end);
        this.#buffer = this.#buffer.slice(end + 2);
        const message: SseMessage = { event: 'message', data: '' };
        const data: string[] = [];
        let fields = 0;
        for (const line of block.split('\n')) {
          if (line.startsWith(':')) this.comments.push(line.slice(1).trim());
          else if (line.startsWith('data: ')) (data.push(line.slice(6)), fields++);
          else if (line.startsWith('id: ')) ((message.id = line.slice(4)), fields++);
          else if (line.startsWith('event: ')) ((message.event = line.slice(7)), fields++);
        }
        if (fields === 0) continue;
        message.data = data.join('\n');
        return message;
      }
      const { done, value } = await this.#reader.read();
      if (done) return null;
      this.#buffer += this.#decoder.decode(value, { stream: true });
    }
  }

  /** Reads messages until `stop(message)` is true or the stream ends; returns them all. */
  async until(stop: (message: SseMessage) => boolean): Promise<SseMessage[]> {
    const out: SseMessage[] = [];
    for (;;) {
      const message = await this.next();
      if (message === null) return out;
      out.push(message);
      if (stop(message)) return out;
    }
  }

  async close(): Promise<void> {
    await this.#reader.cancel().catch(() => undefined);
  }
}

/** The `id`s of event messages, as numbers. */
export const seqs = (messages: SseMessage[]): number[] => messages.filter((m) => m.id !== undefined).map((m) => Number(m.id));
