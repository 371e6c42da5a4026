import { parentPort } from 'node:worker_threads';
import { serveTransitionWriters as serve } from '../../src/analytics/serveTransitionWriters.js';

/**
 * A writer thread (see `TransitionWriterThread`'s `entry`) that serves as the real one but dies, as
 * a thread killed from outside would, on the first batch of exactly 3 lines it is sent, before writing it.
 */
export function serveTransitionWriters(): void {
  parentPort!.on('message', (message: { batch: { count: number } | null }) => {
    if (message.batch?.count === 3) process.exit(1);
  });
  serve();
}
