import { ModelChoiceError } from '../errors/ModelChoiceError.js';
import type { RunnableGraph } from '../graph/RunnableGraph.js';
import { describeValue } from '../graph/describeValue.js';
import { specOf } from '../graph/compileMachine.js';
import { isLazyNode } from '../graph/lazyNode.js';

/**
 * How to offer the models of a `modelNode` the graph loads late, when the graph has `lazyNode`s
 * (whose nodes are not known before they load, so their models cannot be offered); else "".
 */
function lazyHint(graph: RunnableGraph): string {
  let ids: string[];
  try {
    ids = specOf(graph.toMachine()).nodes.filter(({ node }) => isLazyNode(node)).map(({ id }) => JSON.stringify(id));
  } catch {
    // A graph that does not compile fails its run anyway: the refusal stays about the model.
    return '';
  }
  if (ids.length === 0) return '';
  const which = ids.length === 1 ? `node ${ids[0]} is a lazyNode` : `nodes ${ids.join(', ')} are lazyNodes`;
  return ` (its ${which}, whose models are not known before it loads: for a modelNode, put the lazyNode inside the modelNode's build instead, modelNode(id, models, (model) => lazyNode(id, () => load(model))))`;
}

/**
 * Checks a run's chosen model before the run starts, the same way for `switchboard run|start
 * --model` and `POST /api/runs` `model`: `offered` are the names the graphs module exports as
 * `models` (the default first) and `graph` is the graph the run starts on, whose `models` are
 * those of its `modelNode`s (nested ones included, see `StateGraph.models`). Throws a
 * `ModelChoiceError` whose message starts with `where` (the flag or field): `model_not_offered`
 * when the module offers no models or the graph runs no node on a chosen model (the name would be
 * ignored), `unknown_model` naming the known models when the name is not one of them; a refusal
 * for the graph names its `lazyNode`s, whose models cannot be offered, and how to fix that. The
 * name is quoted as JSON, cut after 60 characters (a name of any length, from a command line or a
 * library caller, gives a message of a few lines).
 *
 * @example
 * checkModelChoice('gpt-4o', ['gpt-4o-mini', 'offline'], graph, '--model');
 * // ModelChoiceError [unknown_model]: --model: unknown model "gpt-4o"; known models: gpt-4o-mini, offline
 */
export function checkModelChoice(model: string, offered: readonly string[], graph: RunnableGraph, where: string): void {
  const quoted = describeValue(model);
  if (offered.length === 0) {
    throw new ModelChoiceError('model_not_offered', `${where}: the graphs module offers no model to choose (it exports no \`models\`), so ${quoted} would be ignored; leave the model out, or export \`models\` from the graphs module`);
  }
  if (!offered.includes(model)) {
    throw new ModelChoiceError('unknown_model', `${where}: unknown model ${quoted}; known models: ${offered.join(', ')}`);
  }
  const own = graph.models ?? [];
  if (own.length === 0) {
    throw new ModelChoiceError(
      'model_not_offered',
      `${where}: graph "${graph.name}" runs no node on a chosen model (it has no modelNode, in itself, in a graph it runs as a node, or in a coordinator's specialists sharing "runModel"), so ${quoted} would be ignored${lazyHint(graph)}; leave the model out, or start a graph built with a ModelCatalog`,
    );
  }
  if (!own.includes(model)) {
    throw new ModelChoiceError('unknown_model', `${where}: graph "${graph.name}" does not run on ${quoted}; its models: ${own.join(', ')}${lazyHint(graph)}`);
  }
}
