import { AgentRunError, type Agent, type WorkflowContext } from 'switchboard/engine';

/**
 * Runs `agent` on `input` in a fresh session (so nothing carries over between runs or visits) and
 * returns its final answer. Given the node's `workflow` context, the agent's model and tool calls
 * are reported into the run (`ctx.report`) while anyone listens, as an agent node's are. A run that
 * ends without an answer (max iterations, failed, cancelled) rejects with an `AgentRunError`; model
 * errors reject as they are.
 */
export async function answerWith(agent: Agent, input: string, options: { signal?: AbortSignal; workflow?: WorkflowContext } = {}): Promise<string> {
  const workflow = options.workflow;
  const result = await agent.newSession().run(input, {
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    ...(workflow === undefined ? {} : { workflow }),
    ...(workflow?.reporting ? { onEvent: (event) => workflow.report({ ...event }) } : {}),
  });
  if (result.status === 'completed' && result.outputText !== null) return result.outputText;
  throw new AgentRunError(
    result.error?.message ?? `agent "${agent.name}" ended with status ${result.status} before it answered`,
    { code: result.status === 'cancelled' ? 'run_cancelled' : 'agent_failed', agent: agent.name },
  );
}
