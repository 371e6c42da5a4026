/** What `--help` says about `--model` (run and start). */
export const MODEL_OPTION_HELP = "the model the run's agents use, one of the graphs module's `models` (default: its first; the customer-service graph: offline, and with OPENAI_API_KEY the names in SWITCHBOARD_MODEL and SWITCHBOARD_MODELS)";

/** Request metadata for a run: an attached image path, injected faults, a tool budget, the model chosen. */
export function runMetadata(options: { image?: string; faults?: readonly string[]; toolBudget?: number; model?: string }): Record<string, unknown> | undefined {
  const metadata: Record<string, unknown> = {
    ...(options.image ? { image: { path: options.image } } : {}),
    ...(options.faults?.length ? { faults: [...options.faults] } : {}),
    ...(options.toolBudget !== undefined ? { toolBudget: options.toolBudget } : {}),
    ...(options.model !== undefined ? { model: options.model } : {}),
  };
  return Object.keys(metadata).length === 0 ? undefined : metadata;
}
