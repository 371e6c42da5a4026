import { assign, fromPromise, type AnyActorRef } from 'xstate';
import { COMPILE_NODE, type CompilableNode, type CompiledNodeState, type NodeCompileScope } from '../graph/CompilableNode.js';
import type { GraphMachineContext } from '../graph/GraphMachineContext.js';
import { appendPath } from '../graph/PathLog.js';
import { runtimeOf } from '../graph/RunRuntime.js';
import { contextOf, nextState, settleAndRoute, type StepArgs } from '../graph/stepKit.js';
import { stateKey } from '../graph/stateKey.js';
import { AgentContext } from './AgentContext.js';
import { contextFromObject, executeStep } from './executeStep.js';
import type { Step } from './Step.js';
import { forkKey } from './workflowKeys.js';
import { handOn } from './workflowNodes.js';

interface BranchInput {
  input: unknown;
  context: Record<string, unknown>;
}

interface BranchOutput {
  output: unknown;
  changes: Record<string, unknown>;
}

/**
 * A fork and its join as one XState parallel state: one region per branch, each invoking its
 * step as an actor on the context as it was at the fork. A finished branch's context writes go
 * into the run's state at once (so a later branch's writes win a conflict, and a snapshot taken
 * mid-fork keeps them); when every region is done, the join hands on the outputs in branch order
 * (`gather`) or the fork's input unchanged (`parallel`) and routes like any node.
 */
export function forkNode(mode: 'gather' | 'parallel', branches: ReadonlyArray<{ id: string; step: Step }>): CompilableNode {
  return {
    name: `fork:${mode}`,
    execute: () => null,
    [COMPILE_NODE](scope: NodeCompileScope): CompiledNodeState {
      const { node, root } = scope;
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
                input: ({ context }: { context: GraphMachineContext }) => ({ index, input: context.request.input, context: forkContext(context, node.id) }),
                onDone: { target: 'done', actions: [{ type: n.settle, params: { index, branchId: branch.id } }] },
                onError: { target: `${root}.failed`, actions: [{ type: 'failNode', params: { nodeId: branch.id, key: stateKey(branch.id) } }] },
              },
            },
            done: { type: 'final' },
          },
        };
      });
      return {
        actors: {
          [n.actor]: fromPromise<BranchOutput, BranchInput & { index: number }>(async ({ input }) => {
            const before = AgentContext.from(input.context);
            const done = await executeStep(branches[input.index]!.step, before, input.input);
            return { output: done.output ?? null, changes: done.context.changesFrom(before) };
          }),
        },
        actions: {
          [n.begin]: assign((args: StepArgs) => {
            const ctx = contextOf(args);
            ctx.put(forkKey(node.id), { at: contextFromObject(args.context.state).toJSON(), outputs: {} });
            return { state: nextState(args, args.context.state).state };
          }),
          [n.settle]: assign((args: StepArgs, { index, branchId }: { index: number; branchId: string }) => {
            const { output, changes } = args.event.output as BranchOutput;
            const ctx = contextOf(args);
            for (const [key, value] of Object.entries(changes)) ctx.put(key, value);
            const held = ctx.get(forkKey(node.id)) as { at: Record<string, unknown>; outputs: Record<string, unknown> };
            ctx.put(forkKey(node.id), { ...held, outputs: { ...held.outputs, [index]: output } });
            return { state: nextState(args, args.context.state).state, path: appendPath(args.context.path, branchId) };
          }),
          [n.join]: assign((args: StepArgs) => {
            const ctx = contextOf(args);
            const held = ctx.get(forkKey(node.id)) as { outputs: Record<string, unknown> };
            ctx.state.delete(forkKey(node.id));
            const runtime = runtimeOf(args.self as AnyActorRef);
            const value = mode === 'gather' ? branches.map((_b, i) => held.outputs[i] ?? null) : args.context.request.input;
            return settleAndRoute(args, node, handOn(value), runtime.clock.now() - runtime.clock.now());
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

/** The context every branch starts from: the run's context when the fork began. */
function forkContext(context: GraphMachineContext, forkId: string): Record<string, unknown> {
  const held = context.state[forkKey(forkId)] as { at?: Record<string, unknown> } | undefined;
  return held?.at ?? contextFromObject(context.state).toJSON();
}
