import { WorkflowExecutionError } from '../errors/WorkflowExecutionError.js';
import { describeThrown } from '../errors/SwitchboardError.js';
import type { NodeFunction } from '../graph/AgentNode.js';
import { AgentContext } from './AgentContext.js';
import type { NodeRuntime } from './compileWorkflow.js';
import { contextFromState, executeStep, writeBack } from './executeStep.js';
import type { GateOutcome } from './Gate.js';
import { GateDecision, type JudgeVerdict } from './JudgeVerdict.js';
import { gateKey } from './workflowKeys.js';
import { handOn } from './workflowNodes.js';
import { deadlineKey } from './personRouter.js';
import { giveStepSignal } from './stepSignal.js';

type GateRuntime = Extract<NodeRuntime, { type: 'gate' }>;

function verdictOf(outcome: GateOutcome, gate: string): JudgeVerdict {
  const decision = typeof outcome === 'string' ? outcome : outcome?.decision;
  if (!GateDecision.safeParse(decision).success) {
    throw new WorkflowExecutionError(`gate "${gate}" answered ${JSON.stringify(decision) ?? typeof decision}; evaluate must return 'PASS', 'FAIL', 'ESCALATE' or 'TIMEOUT' (or { decision, verdict })`, {
      code: 'invalid_node_result',
      nodeId: gate,
    });
  }
  const given = typeof outcome === 'object' ? outcome.verdict : undefined;
  return { decision: decision as GateDecision, score: given?.score ?? null, reasons: given?.reasons ?? [] };
}

/**
 * A gate judging the value that reaches it. FAIL writes the verdict, lets the reflector turn it
 * into feedback (`JUDGE_REFLECTION`) and routes to `onFail`, whose output comes back here; after
 * `maxRetries` fails (or with no `onFail`) a fail counts as ESCALATE. ESCALATE without
 * `onEscalate`, and every decision of a gate that asks a person, wait for a person (`WAIT`).
 */
export function gateNode(nodeId: string, rt: GateRuntime): NodeFunction {
  return async (wctx, request) => {
    const before = contextFromState(wctx.state);
    let ctx = before.mutate().with(AgentContext.CURRENT_STEP, nodeId).build();
    // The judges, the reflector and updateContext see the node's signal as `ctx.signal`.
    giveStepSignal(ctx, wctx.nodeSignal);
    const person = rt.gate.waitsForPerson;
    if (person !== undefined && rt.person !== null) {
      // The deadline is stored with the run, so it holds across restarts.
      if (person.timeoutMs !== null) wctx.put(deadlineKey(nodeId), person.now() + person.timeoutMs);
      return handOn(request.input, 'WAIT');
    }
    let verdict: JudgeVerdict;
    try {
      verdict = verdictOf(await rt.gate.evaluate(ctx, request.input), nodeId);
    } catch (error) {
      if (error instanceof WorkflowExecutionError) throw error;
      throw new WorkflowExecutionError(`gate "${nodeId}" failed to evaluate: ${describeThrown(error)}`, { code: 'node_failed', nodeId, cause: error });
    }
    const retries = typeof before.get(gateKey(nodeId)) === 'number' ? (before.get(gateKey(nodeId)) as number) : 0;
    if (verdict.decision === 'FAIL' && (!rt.handles.FAIL || retries >= rt.maxRetries)) {
      const why = rt.handles.FAIL ? `no passing output after ${rt.maxRetries} retries` : 'no onFail step to revise the output';
      verdict = { ...verdict, decision: 'ESCALATE', reasons: [...verdict.reasons, why] };
    }
    ctx = ctx.mutate().with(AgentContext.JUDGE_VERDICT, verdict).with(gateKey(nodeId), verdict.decision === 'FAIL' ? retries + 1 : 0).build();
    if (verdict.decision === 'FAIL' && rt.reflector !== null) {
      const reflected = await executeStep(rt.reflector, ctx, verdict);
      ctx = reflected.context.mutate().with(AgentContext.JUDGE_REFLECTION, String(reflected.output)).with(AgentContext.CURRENT_STEP, nodeId).build();
    }
    if (rt.gate.updateContext !== undefined) ctx = rt.gate.updateContext(ctx, verdict.decision);
    writeBack(wctx, before, ctx);
    const route = verdict.decision === 'ESCALATE' && !rt.handles.ESCALATE && rt.person !== null ? 'WAIT' : verdict.decision;
    return handOn(request.input, route);
  };
}
