import { z } from 'zod';
import { Agent } from './Agent.js';
import type { AgentRunResult } from './AgentRunResult.js';
import type { AgentSession } from './AgentSession.js';
import { HandoffPolicy, type HandoffPolicyOptions } from './HandoffPolicy.js';
import { linkSignals } from './raceAbort.js';
import { tool, type Tool, type ToolContext } from './tool.js';
import { AgentDefinitionError } from '../errors/AgentDefinitionError.js';
import { HandoffError } from '../errors/HandoffError.js';
import { describeThrown } from '../errors/SwitchboardError.js';
import { formatZodError } from '../errors/formatZodError.js';

const SubagentArgs = z.object({
  task: z.string().min(1).describe('What the subagent should do, stated completely'),
  context: z.string().optional().describe('Facts the subagent needs that are not in the task'),
});
/** The arguments of a subagent tool: `{ task, context? }`. */
export type SubagentArgs = z.output<typeof SubagentArgs>;

/** Options for `subagentTool()`. */
export interface SubagentToolOptions {
  /** Default: `subagent_<normalized agent name>`. */
  name?: string;
  description?: string;
  policy?: HandoffPolicyOptions;
  /** `fresh` (default): a new session per call; `shared`: one session whose memory carries over. */
  session?: 'fresh' | 'shared';
  /** The answer when the policy says `fallback` (default: `{ status: 'fallback', subagent, reason, outputText: null }`). */
  fallback?: (args: SubagentArgs, reason: HandoffError, ctx: ToolContext) => unknown;
}

/** `subagent_` plus the agent name in lower case with anything but letters, digits, `_` and `-` turned into `_`. */
export function subagentToolName(agentName: string): string {
  const normalized = agentName.toLowerCase().replace(/[^a-z0-9_-]+/g, '_').replace(/_+/g, '_').replace(/^_|_$/g, '');
  return `subagent_${normalized || 'agent'}`.slice(0, 64);
}

/**
 * Exposes an agent as a tool of another agent (ai4j's subagent handoff). The model calls it with
 * `{ task, context? }`; the subagent runs (a fresh session per call by default) and its answer is
 * the tool output. The policy bounds depth, retries and time, allows or denies tool names, and says
 * whether a denial or failure fails the call or answers with the fallback. `handoff.started` and
 * `handoff.completed` (with `status`) go into the calling agent's event stream.
 *
 * @example
 * const coordinator = new Agent({ name: 'coordinator', instructions: '…',
 *   tools: [subagentTool(weatherAgent, { policy: { maxRetries: 1, timeoutMs: 30_000, onError: 'fallback' } })] });
 */
export function subagentTool(agent: Agent, options: SubagentToolOptions = {}): Tool<typeof SubagentArgs> {
  if (!(agent instanceof Agent)) throw new AgentDefinitionError('subagentTool(agent): expected an Agent made with new Agent({ ... })');
  const parsed = HandoffPolicy.safeParse(options.policy ?? {});
  if (!parsed.success) throw new AgentDefinitionError(`subagentTool("${agent.name}") policy: ${formatZodError(parsed.error)}`);
  const policy = parsed.data;
  const name = options.name ?? subagentToolName(agent.name);
  const shared: AgentSession | null = options.session === 'shared' ? agent.newSession() : null;
  const firstLine = agent.instructions.split('\n')[0]!.slice(0, 160);
  const fallback =
    options.fallback ?? ((_args: SubagentArgs, reason: HandoffError) => ({ status: 'fallback', subagent: agent.name, reason: reason.message, outputText: null }));

  const deny = (depth: number): HandoffError | null => {
    const denied = (why: string, code: 'handoff_denied' | 'handoff_depth' = 'handoff_denied') =>
      new HandoffError(`handoff to subagent "${agent.name}" denied: ${why}`, { code, tool: name });
    const allowed = policy.allowedTools ?? [];
    if (allowed.length > 0 && !allowed.includes(name)) {
      return denied(`tool "${name}" is not in the policy's allowedTools [${allowed.join(', ')}]; add it to allowedTools to allow this handoff`);
    }
    if (policy.deniedTools?.includes(name)) {
      return denied(`tool "${name}" is in the policy's deniedTools; remove it from deniedTools to allow this handoff`);
    }
    if (depth > policy.maxDepth) {
      return denied(`handoff depth ${depth} exceeds maxDepth ${policy.maxDepth}; raise the policy's maxDepth to allow nested handoffs`, 'handoff_depth');
    }
    return null;
  };

  const attempt = async (args: SubagentArgs, ctx: ToolContext, depth: number): Promise<AgentRunResult> => {
    const controller = linkSignals(ctx.signal);
    const timeout = new HandoffError(`subagent "${agent.name}" did not answer within timeoutMs ${policy.timeoutMs} ms`, {
      code: 'handoff_timeout',
      tool: name,
      retryable: true,
    });
    const timer = policy.timeoutMs > 0 ? setTimeout(() => controller.abort(timeout), policy.timeoutMs) : undefined;
    try {
      const input = args.context ? `${args.task}\n\nContext:\n${args.context}` : args.task;
      const session = shared ?? agent.newSession();
      const result = await session.run(input, { signal: controller.signal, depth, ...(ctx.workflow ? { workflow: ctx.workflow } : {}) });
      if (controller.signal.reason === timeout) throw timeout;
      if (result.status !== 'completed') {
        throw new HandoffError(`subagent "${agent.name}" ended with status ${result.status}${result.error ? `: ${result.error.message}` : ''}`, {
          code: 'handoff_failed',
          tool: name,
          retryable: true,
        });
      }
      return result;
    } finally {
      if (timer !== undefined) clearTimeout(timer);
      controller.abort();
    }
  };

  return tool({
    name,
    description: options.description ?? `Hand a task to the "${agent.name}" agent and get its answer. ${firstLine}`.trim(),
    parameters: SubagentArgs,
    execute: async (args, ctx) => {
      const depth = ctx.depth + 1;
      const base = { handoffId: `handoff_${ctx.callId}`, tool: name, subagent: agent.name, depth };
      ctx.emit({ type: 'handoff.started', ...base, status: 'started' });
      const denial = deny(depth);
      if (denial !== null) {
        if (policy.onDenied === 'fallback') {
          const output = await fallback(args, denial, ctx);
          ctx.emit({ type: 'handoff.completed', ...base, status: 'fallback', attempts: 0, error: denial.message });
          return output;
        }
        ctx.emit({ type: 'handoff.completed', ...base, status: 'denied', attempts: 0, error: denial.message });
        throw denial;
      }
      let lastError: HandoffError | null = null;
      let attempts = 0;
      while (attempts <= policy.maxRetries && !ctx.signal.aborted) {
        attempts += 1;
        try {
          const result = await attempt(args, ctx, depth);
          ctx.emit({ type: 'handoff.completed', ...base, status: 'completed', attempts, outputText: result.outputText });
          return { subagent: agent.name, outputText: result.outputText, attempts };
        } catch (error) {
          lastError =
            error instanceof HandoffError
              ? error
              : new HandoffError(`subagent "${agent.name}" failed: ${describeThrown(error)}`, { code: 'handoff_failed', tool: name, cause: error });
        }
      }
      const failure = lastError ?? new HandoffError(`handoff to subagent "${agent.name}" was cancelled`, { code: 'handoff_failed', tool: name });
      if (policy.onError === 'fallback' && !ctx.signal.aborted) {
        const output = await fallback(args, failure, ctx);
        ctx.emit({ type: 'handoff.completed', ...base, status: 'fallback', attempts, error: failure.message });
        return output;
      }
      ctx.emit({ type: 'handoff.completed', ...base, status: 'failed', attempts, error: failure.message });
      throw failure;
    },
  });
}
