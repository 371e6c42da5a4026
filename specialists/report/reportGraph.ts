import { StateGraph, lazyNode, modelNode, type Clock, type ModelCatalog, type ModelClient } from 'switchboard/engine';

/** Options for {@link reportGraph}. */
export interface ReportGraphOptions {
  /** Default: `createModelFromEnv()` (offline without `OPENAI_API_KEY`). */
  model?: ModelClient;
  /** The models a run chooses from by its state's `model` (see `modelNode`); wins over `model`. */
  models?: ModelCatalog;
  clock?: Clock;
  timeoutMs?: number;
}

/**
 * The sales-report specialist as a subgraph named `report`: one `report_mcp` node that answers
 * through the MCP server over stdio (see `reportMcpNode`), whose modules load when it first runs.
 *
 * @example
 * const run = await reportGraph({ model: new OfflineModel() }).run('Query the September 2026 sales report.');
 * run.outputText; // 'Sales report for September 2026 (2026-09): revenue 1,286,000, order volume 4,268 orders. …12.81%…'
 */
export function reportGraph(options: ReportGraphOptions = {}): StateGraph {
  const { models, ...rest } = options;
  const load = (model?: ModelClient) => lazyNode('report_mcp', async () => (await import('./reportMcpNode.js')).reportMcpNode(model === undefined ? rest : { ...rest, model }));
  return new StateGraph({ name: 'report', maxSteps: 4 }).addNode('report_mcp', models === undefined ? load() : modelNode('report_mcp', models, load)).start('report_mcp');
}
