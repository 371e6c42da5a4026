import type { AgentNode, AgentRequest, GraphNode, NodeEmit, NodeOutput } from './AgentNode.js';
import type { WorkflowContext } from './WorkflowContext.js';
import type { ModelClient } from '../model/ModelClient.js';
import { ModelCatalog } from '../model/ModelCatalog.js';
import { GraphDefinitionError } from '../errors/GraphDefinitionError.js';
import { describeValue } from './describeValue.js';
import { isHumanNode } from './humanNode.js';
import { isCompilableNode } from './CompilableNode.js';

/** The state key a run's chosen model name is read from (see {@link modelNode}). */
export const RUN_MODEL_KEY = 'runModel';

/** The model a run was started with: its request's `metadata.model` (what `--model` and `POST /api/runs` send), when it names one. */
export function startedModel(request: AgentRequest): string | undefined {
  const asked = request.metadata?.['model'];
  return typeof asked === 'string' ? asked : undefined;
}

/**
 * Where a node keeps the model names it may run on (read by {@link modelNamesOf}): a
 * {@link modelNode}'s catalog names, or a getter of a node that runs graphs (a `WorkflowAgent`, a
 * coordinator's dispatch) answering with theirs.
 */
export const MODEL_NAMES = Symbol.for('switchboard.modelNames');

/**
 * The model names a node may run on, the default first: a {@link modelNode}'s catalog names; for
 * a graph run as a node (`WorkflowAgent`), its graph's `models`; for a coordinator's dispatch node,
 * its specialists' when it shares `runModel` with them (`shareState`). Undefined for any other
 * node, a `lazyNode` included (its node is not known before it loads).
 */
export function modelNamesOf(node: unknown): readonly string[] | undefined {
  if ((typeof node !== 'object' && typeof node !== 'function') || node === null) return undefined;
  const names = (node as { [MODEL_NAMES]?: unknown })[MODEL_NAMES];
  return Array.isArray(names) ? (names as string[]) : undefined;
}

/**
 * A node that runs with the model its run chose: each execution reads the model name from the
 * run's state (`runModel`, see {@link RUN_MODEL_KEY}; absent: the request's `metadata.model`, which
 * `--model` and `POST /api/runs` send, recorded there; else the catalog's default), and runs the
 * node `build` made for that model, built once per model and kept. As the name lives in the state,
 * it is stored with the run: a resumed, recovered or forked run goes on with its own model, and a
 * coordinator's specialists get it when the key is in their `shareState`. A name the catalog does
 * not know fails the execution with an `AgentDefinitionError` naming the known ones. A single
 * `ModelClient` is a catalog of one, named by the client's name. The graph lists the catalog's
 * names in `StateGraph.models` (what `--model` and `POST /api/runs` accept) for a `modelNode`
 * added to it, to a graph it runs as a node (`WorkflowAgent`), or to a coordinator's specialist
 * when the coordinator shares `runModel`; not for one inside a `lazyNode`, whose node is unknown
 * until it first runs: to load a node's code late, put the `lazyNode` inside `build` instead.
 *
 * @example
 * const models = modelsFromEnv();
 * graph.addNode('draft', modelNode('draft', models, (model) => draftNode(model)));
 * // graph.run({ input: 'hi', metadata: { model: 'gpt-4o' } }) (what `--model gpt-4o` sends) drafts on gpt-4o.
 */
export function modelNode<C extends WorkflowContext = WorkflowContext>(name: string, models: ModelCatalog | ModelClient, build: (model: ModelClient) => GraphNode<C>): AgentNode<C> {
  if (typeof build !== 'function') throw new GraphDefinitionError(`modelNode("${name}"): build must be a function of the model returning the node; received ${describeValue(build)}`);
  const catalog = models instanceof ModelCatalog ? models : ModelCatalog.of(models);
  const built = new Map<string, GraphNode<C>>();
  const nodeFor = (ctx: C, request: AgentRequest): GraphNode<C> => {
    let chosen = ctx.get(RUN_MODEL_KEY);
    if (typeof chosen !== 'string') {
      // No node recorded a choice yet: the one the run was started with (`--model`, `POST /api/runs`
      // `model`: the request's `metadata.model`) is recorded here, so later nodes and a resumed run keep it.
      const asked = startedModel(request);
      if (asked !== undefined) {
        catalog.get(asked);
        ctx.put(RUN_MODEL_KEY, asked);
        chosen = asked;
      }
    }
    const modelName = typeof chosen === 'string' ? chosen : catalog.defaultName;
    let node = built.get(modelName);
    if (node === undefined) {
      node = build(catalog.get(modelName));
      if (isHumanNode(node) || isCompilableNode(node)) {
        throw new GraphDefinitionError(`modelNode("${name}"): build returned a human or self-compiling node, which shapes the machine; add it directly`);
      }
      built.set(modelName, node);
    }
    return node;
  };
  const chosen: AgentNode<C> & { [MODEL_NAMES]: readonly string[] } = {
    name,
    [MODEL_NAMES]: catalog.names,
    execute(ctx: C, request): NodeOutput | Promise<NodeOutput> {
      const node = nodeFor(ctx, request);
      return typeof node === 'function' ? node(ctx, request) : node.execute(ctx, request);
    },
    executeStream(ctx: C, request, emit: NodeEmit): NodeOutput | Promise<NodeOutput> {
      const node = nodeFor(ctx, request);
      if (typeof node === 'function') return node(ctx, request);
      return typeof node.executeStream === 'function' ? node.executeStream(ctx, request, emit) : node.execute(ctx, request);
    },
  };
  return chosen;
}
