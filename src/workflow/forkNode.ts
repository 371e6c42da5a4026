import { assign, fromPromise, type AnyActorRef } from 'xstate';
import { COMPILE_NODE, type CompilableNode, type CompiledNodeState, type NodeCompileScope } from '../graph/CompilableNode.js';
import type { GraphMachineContext } from '../graph/GraphMachineContext.js';
import { appendPath } from '../graph/PathLog.js';
import { runtimeOf } from '../graph/runtimeOf.js';
import { contextOf, nextState, settleAndRoute, type StepArgs } from '../graph/stepKit.js';
import { AgentContext } from './AgentContext.js';
import { contextFromObject } from './executeStep.js';
import { runBranch, type BranchOutcome, type Recovery } from './runBranch.js';
import { WorkflowLane } from './WorkflowLane.js';
import type { Step } from './Step.js';
import { forkKey } from './workflowKeys.js';
import { early, handOn } from './workflowNodes.js';
import { RUN_CHILD, SubWorkflowWaiting, type ChildResume, type HeldChild } from './runSubWorkflow.js';
import { branchResume, branchSettled, firstWaiting, forkHeld, forkWaitingChild, forkWaitReason, parseForkReply, type ForkHeld } from './forkWait.js';
import type { GraphMachine } from '../graph/compileMachine.js';

interface BranchInput {
  input: unknown;
  context: Record<string, unknown>;
  runId: string;
  step: number;
  resume?: ChildResume;
}

interface BranchOutput {
  output: unknown;
  changes: Record<string, unknown>;
  ran: string[];
  end: BranchOutcome['end'];
  /** Set when the branch's sub-workflow waits for a person: its held snapshot. */
  wait: HeldChild | null;
}

/** The machine of a branch step that is a built workflow (a sub-workflow that can wait and be continued). */
function childMachine(step: Step): GraphMachine | null {
  const run = (step as { [RUN_CHILD]?: unknown })[RUN_CHILD];
  const toMachine = (step as { toMachine?: () => GraphMachine }).toMachine;
  return typeof run === 'function' && typeof toMachine === 'function' ? toMachine.call(step) : null;
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
 *
 * A branch that is a sub-workflow waiting for a person (a HumanGate or an escalation, any depth)
 * makes the fork wait once every other branch is done or waits too: its snapshot is held in the
 * fork's record, the run waits at the fork node, and the reply continues the first waiting branch
 * (in branch order) where it stopped — the finished branches are not run again. Several waiting
 * branches are asked one after another.
 */
export function forkNode(mode: 'gather' | 'parallel', branches: readonly ForkBranch[]): CompilableNode {
  return {
    name: `fork:${mode}`,
    fork: true,
    parts: branches.map((b) => ({ name: b.id, graph: b.step.name })),
    execute: () => null,
    waitingChild: (snapshot, nodeId) => forkWaitingChild(snapshot, nodeId, (index) => (branches[index] === undefined ? null : childMachine(branches[index].step))),
    [COMPILE_NODE](scope: NodeCompileScope): CompiledNodeState {
      const { node } = scope;
      const n = {
        begin: scope.name('begin'),
        settle: scope.name('settle'),
        join: scope.name('join'),
        actor: scope.name('branch'),
        settled: scope.name('settled'),
        waits: scope.name('waits'),
        wait: scope.name('wait'),
        validReply: scope.name('validReply'),
        answer: scope.name('answer'),
      };
      const params = { nodeId: node.id, key: node.key };
      const regions: Record<string, object> = {};
      branches.forEach((branch, index) => {
        regions[`b${index}`] = {
          initial: 'check',
          states: {
            // Entered again after a reply: a finished branch, or one whose wait is not being answered, stays as it is.
            check: { always: [{ guard: { type: n.settled, params: { index } }, target: 'done' }, { target: 'running' }] },
            running: {
              invoke: {
                id: `${node.id}/${branch.id}`,
                src: n.actor,
                input: ({ context }: { context: GraphMachineContext }) => {
                  const resume = branchResume(forkHeld(context.state, node.id), index);
                  const given = { index, input: context.request.input, context: forkContext(context, node.id), runId: context.runId, step: context.steps };
                  return resume === undefined ? given : { ...given, resume };
                },
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
          [n.actor]: fromPromise<BranchOutput, BranchInput & { index: number }>(async ({ input, self, signal }) => {
            const branch = branches[input.index]!;
            const before = AgentContext.from(input.context);
            const machine = self._parent;
            const lane = machine === undefined ? null : new WorkflowLane(runtimeOf(machine), input.runId, `${branch.id}[${input.index + 1}]`, input.step, signal);
            try {
              const done = await runBranch(branch.id, branch.step, branch.recoveries, before, input.input, lane, input.resume);
              // A continued branch is the same execution: only a recovery it ran now is new in the path.
              const ran = input.resume === undefined ? done.ran : done.ran.slice(1);
              return { output: done.output ?? null, changes: done.context.changesFrom(before), ran, end: done.end, wait: null };
            } catch (error) {
              if (!(error instanceof SubWorkflowWaiting) || childMachine(branch.step) === null) throw error;
              return { output: null, changes: {}, ran: input.resume === undefined ? [branch.id] : [], end: null, wait: error.held };
            }
          }),
        },
        guards: {
          [n.settled]: ({ context }: { context: GraphMachineContext }, { index }: { index: number }) => branchSettled(forkHeld(context.state, node.id), index),
          [n.waits]: ({ context }: { context: GraphMachineContext }) => firstWaiting(forkHeld(context.state, node.id)) !== null,
          [n.validReply]: ({ event }: { event: { type: string; reply?: unknown } }) => event.type === 'human.reply' && parseForkReply(event.reply).ok,
        },
        actions: {
          [n.begin]: assign((args: StepArgs) => {
            const ctx = contextOf(args);
            ctx.put(forkKey(node.id), { at: contextFromObject(args.context.state).toJSON(), outputs: {} });
            return { state: nextState(args, args.context.state).state };
          }),
          [n.settle]: assign((args: StepArgs, { index }: { index: number }) => {
            const { output, changes, ran, end, wait } = args.event.output as BranchOutput;
            const ctx = contextOf(args);
            for (const [key, value] of Object.entries(changes)) ctx.put(key, value);
            const held = ctx.get(forkKey(node.id)) as ForkHeld;
            const { [index]: _was, ...waits } = held.waits ?? {};
            const { reply, ...rest } = held;
            const next: ForkHeld = wait === null ? { ...rest, outputs: { ...held.outputs, [index]: output }, ...(end === null ? {} : { ends: { ...held.ends, [index]: end } }) } : { ...rest };
            const waiting = wait === null ? waits : { ...waits, [index]: wait };
            if (Object.keys(waiting).length > 0) next.waits = waiting;
            else delete next.waits;
            // The reply was for this branch (or another still to run): it is used up only by its branch.
            if (reply !== undefined && reply.index !== index) next.reply = reply;
            ctx.put(forkKey(node.id), next);
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
          // Every branch is done or waits: the run waits here, asking about the first waiting branch.
          [n.wait]: assign((args: StepArgs) => {
            const held = forkHeld(args.context.state, node.id)!;
            const runtime = runtimeOf(args.self as AnyActorRef);
            const reason = forkWaitReason(node.id, branches.map((b) => b.id), held);
            if (runtime.listening) runtime.emit(args.context.runId, { type: 'run.waiting', nodeId: node.id, step: args.context.steps, reason });
            const waiting = { status: 'waiting' as const, waiting: { nodeId: node.id, reason, since: runtime.clock.now() } };
            // The time a run waits for a person is not spent: what was spent until now is kept for the next leg.
            return runtime.meter === null ? waiting : { ...waiting, budget: runtime.meter.toState() };
          }),
          // The reply goes to the first waiting branch, which runs on from where it stopped.
          [n.answer]: assign((args: StepArgs) => {
            const ctx = contextOf(args);
            const held = ctx.get(forkKey(node.id)) as ForkHeld;
            const parsed = parseForkReply((args.event as { reply?: unknown }).reply);
            ctx.put(forkKey(node.id), { ...held, reply: { index: firstWaiting(held)!, reply: parsed.ok ? parsed.value : null } });
            return { state: nextState(args, args.context.state).state, status: 'running' as const, waiting: null };
          }),
        },
        state: {
          entry: [...scope.enterActions(), { type: n.begin, params }],
          initial: 'branches',
          states: {
            branches: {
              type: 'parallel',
              states: regions,
              onDone: [
                { guard: n.waits, target: 'waiting', actions: [{ type: n.wait, params }] },
                { target: 'routing', actions: [{ type: n.join, params }] },
              ],
            },
            waiting: { on: { 'human.reply': { guard: n.validReply, target: 'branches', actions: [{ type: n.answer, params }] } } },
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
