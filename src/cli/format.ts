import { readPath } from '../graph/PathLog.js';
import type { RunRecord, StoredEvent } from '../persistence/RunStore.js';

/** Cuts text to `max` characters on one line. */
export function excerpt(text: string | null | undefined, max = 60): string {
  if (text === null || text === undefined) return '';
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length <= max ? line : `${line.slice(0, max - 1)}…`;
}

/** A plain-text table with left-aligned columns. */
export function table(headers: string[], rows: string[][]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd();
  return [line(headers), line(widths.map((w) => '─'.repeat(w))), ...rows.map(line)].join('\n');
}

/** The path stored in a run's snapshot (node ids, as the engine ran them). */
export function snapshotPath(record: RunRecord): string[] {
  return readPath((record.snapshot as { context?: { path?: unknown } } | null)?.context?.path);
}

/**
 * One row per run: id, graph, status, steps (the length of its path as `pathOf` names it: a typed
 * workflow's steps, not its structural nodes), when, and what it waits for or answered.
 */
export function runsTable(records: RunRecord[], pathOf: (record: RunRecord) => string[] = snapshotPath): string {
  const rows = records.map((r) => [
    r.runId,
    r.graphName,
    r.status,
    String(pathOf(r).length),
    new Date(r.updatedAt).toISOString().replace('T', ' ').slice(0, 19),
    excerpt(r.status === 'waiting' ? `waits: ${r.waitReason ?? ''}` : r.error?.message ?? r.outputText),
  ]);
  return table(['RUN', 'GRAPH', 'STATUS', 'STEPS', 'UPDATED', 'NOTE'], rows);
}

/** One line per event: seq, type, node, and the most telling field. */
export function eventLine(event: StoredEvent): string {
  const d = event.data;
  const node = typeof d.nodeId === 'string' ? d.nodeId : '';
  let detail = '';
  if (event.type === 'edge.traversed') detail = `${String(d.from)} → ${String(d.to)} (${String(d.kind)})`;
  else if (event.type === 'node.completed') detail = `${String(d.durationMs)} ms ${excerpt((d.result as { outputText?: string } | null)?.outputText, 50)}`;
  else if (event.type === 'run.waiting') detail = String(d.reason);
  else if (event.type === 'node.failed' || event.type === 'route.failed') detail = excerpt((d.error as { message?: string }).message, 70);
  else if (event.type === 'run.completed') detail = String((d.run as { status?: string }).status);
  else if (event.type === 'run.resumed') detail = String(d.cause);
  else if (event.type === 'route.unmatched') detail = `answer ${JSON.stringify(d.answer)} not in route map (${((d.routeKeys as string[] | undefined) ?? []).join(', ')})`;
  return `${String(event.seq).padStart(4)}  ${event.type.padEnd(15)} ${node.padEnd(14)} ${detail}`.trimEnd();
}
