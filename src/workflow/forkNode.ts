import { assign, fromPromise, type AnyActorRef } from 'xstate';
import { COMPILE_NODE, type CompilableNode, type CompiledNodeState, type NodeCompileScope } from '../graph/CompilableNode.js';
import type { GraphMachineContext } from '../graph/GraphMachineContext.js';
import { appendPath } from '../graph/PathLog.js';
import { runtimeOf } from '../graph/RunRuntime.js';
import { contextOf, nextState, settleAndRoute, type StepArgs } from '../graph/stepKit.js';
import { AgentContext } from './AgentContext.js';
import { contextFromObject } from './executeStep.js';
import { runBranch, type BranchOutcome, type Recovery } from './runBranch.js';
import { WorkflowLane } from './WorkflowLane.js';
import type { Step } from './Step.js';
import { forkKey } from './workflowKeys.js';
import { early, handOn } from './workflowNodes.js';

interface BranchInput {
  input: unknown;
  context: Record<string, unknown>;
  runId: string;
  step: number;
}

interface BranchOutput {
  output: unknown;
  changes: Record<string, unknown>;
  ran: string[];
  end: BranchOutcome['end'];
}

/** A fork's branch: its node id, its step and the workflow's `onError` recoveries for it. */
export interface ForkBranch {
  id: string;
  step: Step;
  recoveries: readonly Recovery[];
}

/**
 * A fork and its join as one XState parallel state: one region per branch, each invoking its
 * step as an actor on the context as it was at the fork (reporting in its own trace lane,
 * `<path>/<branch>[n]`, with the workflow's `onError` recoveries). A finished branch's context writes go
 * into the run's state at once (so a later branch's writes win a conflict, and a snapshot taken
 * mid-fork keeps them); when every region is done, the join hands on the outputs in branch order
 * (`gather`) or the fork's input unchanged (`parallel`) and routes like any node — or, when a
 * branch aborted or terminated, ends the run as that step asked (the first such branch in order).
 */
export function forkNode(mode: 'gather' | 'parallel', branches: readonly ForkBranch[]): CompilableNode {
  return {
    name: `fork:${mode}`,
    fork: true,
    parts: branches.map((b) => ({ name: b.id, graph: b.step.name })),
    execute: () => null,
    [COMPILE_NODE](scope: NodeCompileScope): CompiledNodeState {
      const { node } = scope;
      const n = { begin: scope.name('begin'), settle: scope.name('settle'), join: scope.name('join'), actor: scope.name('branch') };
      const params = { nodeId: node.id, key: node.key };
      const regions: Record<string, object> = {};
      branches.forEach((branch, index) => {
        regions[`b${index}`] = {
          initial: 'running',
          states: {
            running: {
              invoke: {
                id: `${node.id}/${branch.id}`,
                src: n.actor,
                input: ({ context }: { context: GraphMachineContext }) => ({ index, input: context.request.input, context: forkContext(context, node.id), runId: context.runId, step: context.steps }),
                onDone: { target: 'done', actions: [{ type: n.settle, params: { index } }] },
                // A branch whose model call a spent budget refused stops the run for the budget, as a step would.
                onError: scope.errorHops(branch.id),
              },
            },
            done: { type: 'final' },
          },
        };
      });
      return {
        actors: {
          [n.actor]: fromPromise<BranchOutput, BranchInput & { index: number }>(async ({ input, self }) => {
            const branch = branches[input.index]!;
            const before = AgentContext.from(input.context);
            const machine = self._parent;
            const lane = machine === undefined ? null : new WorkflowLane(runtimeOf(machine), input.runId, `${branch.id}[${input.index + 1}]`, input.step);
            const done = await runBranch(branch.id, branch.step, branch.recoveries, before, input.input, lane);
            return { output: done.output ?? null, changes: done.context.changesFrom(before), ran: done.ran, end: done.end };
          }),
        },
        actions: {
          [n.begin]: assign((args: StepArgs) => {
            const ctx = contextOf(args);
            ctx.put(forkKey(node.id), { at: contextFromObject(args.context.state).toJSON(), outputs: {} });
            return { state: nextState(args, args.context.state).state };
          }),
          [n.settle]: assign((args: StepArgs, { index }: { index: number }) => {
            const { output, changes, ran, end } = args.event.output as BranchOutput;
            const ctx = contextOf(args);
            for (const [key, value] of Object.entries(changes)) ctx.put(key, value);
            const held = ctx.get(forkKey(node.id)) as ForkHeld;
            ctx.put(forkKey(node.id), { ...held, outputs: { ...held.outputs, [index]: output }, ...(end === null ? {} : { ends: { ...held.ends, [index]: end } }) });
            let path = args.context.path;
            for (const id of ran) path = appendPath(path, id);
            return { state: nextState(args, args.context.state).state, path };
          }),
          [n.join]: assign((args: StepArgs) => {
            const ctx = contextOf(args);
            const held = ctx.get(forkKey(node.id)) as ForkHeld;
            ctx.state.delete(forkKey(node.id));
            const runtime = runtimeOf(args.self as AnyActorRef);
            const end = branches.map((_b, i) => held.ends?.[i]).find((e) => e !== undefined);
            const value = mode === 'gather' ? branches.map((_b, i) => held.outputs[i] ?? null) : args.context.request.input;
            const result = end === undefined ? handOn(value) : early(end.value, end.end, end.message);
            return settleAndRoute(args, node, result, runtime.clock.now() - runtime.clock.now());
          }),
        },
        state: {
          entry: [...scope.enterActions(), { type: n.begin, params }],
          initial: 'branches',
          states: {
            branches: { type: 'parallel', states: regions, onDone: { target: 'routing', actions: [{ type: n.join, params }] } },
            routing: { always: scope.routingHops() },
          },
        },
      };
    },
  };
}

/** What a fork holds in the run's state while its branches run: the context at the fork, the outputs and early ends so far. */
interface ForkHeld {
  at: Record<string, unknown>;
  outputs: Record<string, unknown>;
  ends?: Record<string, NonNullable<BranchOutcome['end']>>;
}

/** The context every branch starts from: the run's context when the fork began. */
function forkContext(context: GraphMachineContext, forkId: string): Record<string, unknown> {
  const held = context.state[forkKey(forkId)] as { at?: Record<string, unknown> } | undefined;
  return held?.at ?? contextFromObject(context.state).toJSON();
}
