/** Request metadata for a run: an attached image path, injected faults, a tool budget. */
export function runMetadata(options: { image?: string; faults?: readonly string[]; toolBudget?: number }): Record<string, unknown> | undefined {
  const metadata: Record<string, unknown> = {
    ...(options.image ? { image: { path: options.image } } : {}),
    ...(options.faults?.length ? { faults: [...options.faults] } : {}),
    ...(options.toolBudget !== undefined ? { toolBudget: options.toolBudget } : {}),
  };
  return Object.keys(metadata).length === 0 ? undefined : metadata;
}
