import type { AgentRequest } from './AgentNode.js';
import { EventChannel } from './EventChannel.js';
import type { RunOptions } from './RunOptions.js';
import type { WorkflowEvent } from './WorkflowEvent.js';
import type { WorkflowRun } from './WorkflowRun.js';

/**
 * Wraps a run as an async iterable of its events. The run starts when iteration starts; the last
 * event is `run.completed`. Stopping the iteration early cancels the run; a definition error
 * rejects the first `next()`.
 */
export function streamRun(
  start: (input: string | AgentRequest, options: RunOptions, listener: (event: WorkflowEvent) => void) => Promise<WorkflowRun>,
  input: string | AgentRequest,
  options: RunOptions,
): AsyncIterable<WorkflowEvent> {
  return {
    [Symbol.asyncIterator]() {
      const controller = new AbortController();
      const outer = options.signal;
      const forward = () => controller.abort(outer?.reason);
      if (outer?.aborted) controller.abort(outer.reason);
      else outer?.addEventListener('abort', forward, { once: true });
      const channel = new EventChannel<WorkflowEvent>(() => controller.abort());
      // The caller's onEvent stays a listener of its own, so one that throws is detached alone.
      const listener = (event: WorkflowEvent) => channel.push(event);
      // Start on the next microtask so that a definition error surfaces through next(), not here.
      queueMicrotask(() => {
        let running: Promise<WorkflowRun>;
        try {
          running = start(input, { ...options, signal: controller.signal }, listener);
        } catch (error) {
          running = Promise.reject(error);
        }
        running.then(
          () => channel.close(),
          (error: unknown) => channel.fail(error),
        ).finally(() => outer?.removeEventListener('abort', forward));
      });
      return channel;
    },
  };
}
