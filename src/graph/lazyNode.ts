import type { AgentNode, GraphNode, NodeEmit, NodeOutput } from './AgentNode.js';
import type { WorkflowContext } from './WorkflowContext.js';
import { isCompilableNode } from './CompilableNode.js';
import { GraphDefinitionError } from '../errors/GraphDefinitionError.js';
import { describeValue } from './describeValue.js';
import { isHumanNode } from './humanNode.js';

/** Marks the nodes {@link lazyNode} makes (read by {@link isLazyNode}). */
const LAZY_NODE = Symbol.for('switchboard.lazyNode');

/** True for a node made by {@link lazyNode}: its own node is not known before it loads. */
export function isLazyNode(node: unknown): boolean {
  return typeof node === 'object' && node !== null && (node as { [LAZY_NODE]?: unknown })[LAZY_NODE] === true;
}

/**
 * A node whose implementation is loaded the first time it runs, usually with a dynamic `import()`:
 * a graph can be built, drawn, exported, hashed and resumed with only its shape loaded, and a
 * process that never reaches the node never loads its modules (the CLI starts faster). The loaded
 * node is kept, and runs exactly as it would have been added directly (`executeStream` when the
 * run streams and the node has one, else `execute`). A failed load fails that execution and is
 * tried again the next time. Human nodes and nodes that compile themselves (a coordinator's
 * dispatch) shape the machine, so they cannot be loaded late: loading one is a
 * `GraphDefinitionError`. A `modelNode` loaded this way runs on the run's chosen model, but the
 * graph cannot offer its models to `--model` and `POST /api/runs` (they are not known before it
 * loads): put the `lazyNode` inside the `modelNode`'s `build` instead.
 *
 * @example
 * graph.addNode('retrieve', lazyNode('retrieve', async () => (await import('./retrieveNode.js')).retrieveNode()));
 */
export function lazyNode<C = WorkflowContext>(name: string, load: () => Promise<GraphNode<C>> | GraphNode<C>): AgentNode<C> {
  if (typeof load !== 'function') throw new GraphDefinitionError(`lazyNode("${name}"): load must be a function returning the node (or a promise of it); received ${describeValue(load)}`);
  let loading: Promise<GraphNode<C>> | null = null;
  const loaded = (): Promise<GraphNode<C>> =>
    (loading ??= (async () => {
      const node = await load();
      const callable = typeof node === 'function' || (typeof node === 'object' && node !== null && typeof (node as { execute?: unknown }).execute === 'function');
      if (!callable) throw new GraphDefinitionError(`lazyNode("${name}"): load returned ${describeValue(node)}; return a node function or an object with execute`);
      if (isHumanNode(node) || isCompilableNode(node)) {
        throw new GraphDefinitionError(`lazyNode("${name}"): load returned a human or self-compiling node, which shapes the machine; add it directly`);
      }
      return node;
    })().catch((error: unknown) => {
      loading = null;
      throw error;
    }));
  const lazy: AgentNode<C> & { [LAZY_NODE]: true } = {
    name,
    [LAZY_NODE]: true,
    async execute(ctx: C, request): Promise<NodeOutput> {
      const node = await loaded();
      return typeof node === 'function' ? node(ctx, request) : node.execute(ctx, request);
    },
    async executeStream(ctx: C, request, emit: NodeEmit): Promise<NodeOutput> {
      const node = await loaded();
      if (typeof node === 'function') return node(ctx, request);
      return typeof node.executeStream === 'function' ? node.executeStream(ctx, request, emit) : node.execute(ctx, request);
    },
  };
  return lazy;
}
