import type { AnyActorRef } from 'xstate';
import type { GraphSpec } from './GraphSpec.js';
import type { GraphMachineContext, NodeActorOutput } from './GraphMachineContext.js';
import { NodeCall } from './NodeCall.js';
import { stepNodeNow } from './nodeActor.js';
import { runtimeOf } from './runtimeOf.js';

/**
 * The action that starts a node of a machine compiled to run its nodes directly: the node runs
 * as a plain promise (no child actor, no mailbox, no system registration) and its outcome comes
 * back as the very done or error event its actor would have sent, so the machine's states, hops
 * and guards are those of the invoking machine. The node starts once the current macrostep is
 * over (after the run's barrier, see `stepNode`), as an invoked actor would.
 */
export function runNodeDirectly(spec: GraphSpec) {
  const events = new Map(spec.nodes.map((node) => [node.key, { done: `xstate.done.actor.${node.id}`, error: `xstate.error.actor.${node.id}` }]));
  return ({ context, self }: { context: GraphMachineContext; self: AnyActorRef }, { key }: { key: string }) => {
    const node = spec.byKey.get(key)!;
    const { done, error } = events.get(key)!;
    const runtime = runtimeOf(self);
    // Bound to the state the entry actions just made (the actor's snapshot is not updated yet).
    const ctx = runtime.context ?? runtime.bind(context.runId, context.state);
    const call = new NodeCall(self);
    runtime.nodeCall = call;
    const input = { runId: context.runId, request: context.request, step: context.steps };
    const settled = (output: NodeActorOutput) => call.settle() && self.send({ type: done, output, actorId: node.id } as never);
    const failed = (thrown: unknown) => call.settle() && self.send({ type: error, error: thrown, actorId: node.id } as never);
    // As stepNode, with a synchronous node's outcome sent at once: a step of such a node makes one
    // promise (the barrier's), not three.
    runtime.barrier().then(() => {
      let output: NodeActorOutput | Promise<NodeActorOutput>;
      try {
        output = stepNodeNow(node, self, input, call, runtime, ctx);
      } catch (thrown) {
        failed(thrown);
        return;
      }
      if (output instanceof Promise) output.then(settled, failed);
      else settled(output);
    }, failed);
  };
}
