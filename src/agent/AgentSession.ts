import { randomUUID } from 'node:crypto';
import type { Agent } from './Agent.js';
import type { AgentEvent } from './AgentEvent.js';
import type { AgentRunResult } from './AgentRunResult.js';
import { linkSignals } from './raceAbort.js';
import { runAgentLoop, type SessionMemory } from './runAgentLoop.js';
import type { ToolResult } from './ToolResult.js';
import type { AgentRequest } from '../graph/AgentNode.js';
import { EventChannel } from '../graph/EventChannel.js';
import type { WorkflowContext } from '../graph/WorkflowContext.js';
import type { ModelMessage } from '../model/ModelMessage.js';
import { AgentRunError } from '../errors/AgentRunError.js';

/**
 * What a run starts from: a string (the user message), a graph request (its `input` as text, or as
 * JSON when it is not a string), or messages to append to the conversation (no `tool` messages).
 */
export type AgentInput = string | AgentRequest | readonly ModelMessage[];

/** Options for `session.run()` and `session.stream()`. */
export interface AgentRunOptions {
  /** Aborting it stops the loop; the run ends with status `cancelled`. */
  signal?: AbortSignal;
  /** The graph context, passed to tools and `allowedTools` when the agent is a graph node. */
  workflow?: WorkflowContext;
  /** Handoff depth (0 = top-level); set by `subagentTool`. */
  depth?: number;
  /**
   * `run()` only: receives the loop's events as they happen (model requests and responses with the
   * model name and usage, tool calls and results, the final result), without streaming the text.
   */
  onEvent?: (event: AgentEvent) => void;
}

/**
 * One conversation with an agent. Its memory (messages and tool results) carries over from one
 * `run` to the next; a session runs one input at a time.
 *
 * @example
 * const session = agent.newSession();
 * for await (const event of session.stream('Weather in Paris?')) {
 *   if (event.type === 'model.delta') process.stdout.write(event.text);
 * }
 */
export class AgentSession<Out = unknown> {
  readonly id = randomUUID();
  readonly agent: Agent<Out>;
  readonly #memory: SessionMemory = { messages: [], toolResults: [] };
  #running = false;

  constructor(agent: Agent<Out>) {
    this.agent = agent;
  }

  /** The conversation so far, system prompt first. */
  get messages(): readonly ModelMessage[] {
    return this.#memory.messages;
  }

  /** Every tool result of the session, oldest first. */
  get toolResults(): readonly ToolResult[] {
    return this.#memory.toolResults;
  }

  /** True while a run is in progress. */
  get running(): boolean {
    return this.#running;
  }

  /** Runs the loop on `input` and resolves with the result (its `status` says how it ended). Model errors reject. */
  run(input: AgentInput, options: AgentRunOptions = {}): Promise<AgentRunResult<Out>> {
    return this.#start(input, options, false, options.onEvent ?? (() => {}));
  }

  /**
   * Runs the loop and yields its events as they happen (`model.delta` carries streamed text); the
   * last event is `final` with the result. Stopping the iteration early aborts the run.
   */
  stream(input: AgentInput, options: AgentRunOptions = {}): AsyncIterable<AgentEvent> {
    return {
      [Symbol.asyncIterator]: () => {
        const controller = linkSignals(options.signal);
        const channel = new EventChannel<AgentEvent>(() => controller.abort());
        queueMicrotask(() => {
          let running: Promise<AgentRunResult<Out>>;
          try {
            running = this.#start(input, { ...options, signal: controller.signal }, true, (event) => channel.push(event));
          } catch (error) {
            running = Promise.reject(error);
          }
          running
            .then(
              () => channel.close(),
              (error: unknown) => channel.fail(error),
            )
            // Releases the listener on the caller's signal.
            .finally(() => controller.abort());
        });
        return channel;
      },
    };
  }

  async #start(input: AgentInput, options: AgentRunOptions, streaming: boolean, emit: (event: AgentEvent) => void): Promise<AgentRunResult<Out>> {
    if (this.#running) {
      throw new AgentRunError(
        `session ${this.id} of agent "${this.agent.name}" is already running; await the current run or use agent.newSession()`,
        { code: 'session_busy', agent: this.agent.name },
      );
    }
    this.#running = true;
    try {
      return await runAgentLoop(this.agent, this.#memory, input, {
        signal: options.signal,
        workflow: options.workflow,
        depth: options.depth ?? 0,
        streaming,
        emit,
      });
    } finally {
      this.#running = false;
    }
  }
}
