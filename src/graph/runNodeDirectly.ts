import type { AnyActorRef } from 'xstate';
import type { GraphSpec } from './GraphSpec.js';
import type { GraphMachineContext } from './GraphMachineContext.js';
import { NodeCall } from './NodeCall.js';
import { stepNode } from './nodeActor.js';
import { runtimeOf } from './RunRuntime.js';

/**
 * The action that starts a node of a machine compiled to run its nodes directly: the node runs
 * as a plain promise (no child actor, no mailbox, no system registration) and its outcome comes
 * back as the very done or error event its actor would have sent, so the machine's states, hops
 * and guards are those of the invoking machine. The node starts once the current macrostep is
 * over (its body runs after the first await), as an invoked actor would.
 */
export function runNodeDirectly(spec: GraphSpec) {
  const events = new Map(spec.nodes.map((node) => [node.key, { done: `xstate.done.actor.${node.id}`, error: `xstate.error.actor.${node.id}` }]));
  return ({ context, self }: { context: GraphMachineContext; self: AnyActorRef }, { key }: { key: string }) => {
    const node = spec.byKey.get(key)!;
    const { done, error } = events.get(key)!;
    const runtime = runtimeOf(self);
    // Bound to the state the entry actions just made (the actor's snapshot is not updated yet).
    if (runtime.context === null) runtime.bind(context.runId, context.state);
    const call = new NodeCall(self);
    runtime.nodeCall = call;
    stepNode(node, self, { runId: context.runId, request: context.request, step: context.steps }, call).then(
      (output) => call.settle() && self.send({ type: done, output, actorId: node.id } as never),
      (thrown: unknown) => call.settle() && self.send({ type: error, error: thrown, actorId: node.id } as never),
    );
  };
}
