import type { WorkflowEvent } from '../graph/WorkflowEvent.js';
import type { TraceEvent } from '../trace/TraceEvent.js';
import { excerpt } from './format.js';

type Fields = Record<string, unknown>;

/** One short line about what a node's step changed: the facts a reader of the trace wants. */
function stepDetail(delta: { set: Fields } | null | undefined): string {
  const set = delta?.set ?? {};
  const parts: string[] = [];
  const c = set.classification as { route?: string; confidence?: number } | undefined;
  if (c?.route) parts.push(`route ${c.route} (${(c.confidence ?? 0).toFixed(2)})`);
  const plan = set.toolPlan as { action?: string; call?: { name?: string; arguments?: unknown } } | undefined;
  if (plan?.action) parts.push(plan.call?.name ? `${plan.action} ${plan.call.name} ${JSON.stringify(plan.call.arguments ?? {})}` : plan.action);
  const observations = set.toolObservations as Array<{ name?: string; ok?: boolean; code?: string }> | undefined;
  const last = observations?.at(-1);
  if (last) parts.push(`${last.name} → ${last.ok ? 'ok' : `failed (${last.code ?? 'error'})`}`);
  if (Array.isArray(set.retrieved)) parts.push(`retrieved ${(set.retrieved as string[]).join(', ') || 'nothing'}`);
  const review = set.review as { verdict?: string; reason?: string } | undefined;
  if (review?.verdict) parts.push(`review: ${review.verdict}${review.reason ? ` — ${excerpt(review.reason, 60)}` : ''}`);
  const vision = set.vision as { text?: string } | undefined;
  if (vision?.text) parts.push(excerpt(vision.text, 60));
  const tasks = set.tasks as Array<{ kind: string }> | undefined;
  if (tasks) parts.push(`tasks: ${tasks.map((t) => t.kind).join(', ')}`);
  const results = set.specialistResults as Array<{ kind: string; status: string }> | undefined;
  if (results) parts.push(`joined: ${results.map((r) => `${r.kind} ${r.status}`).join(', ')}`);
  return parts.join('; ');
}

/**
 * Prints a run's events as a live trace: each node with its duration and what it decided, tool
 * calls, route decisions, specialist lanes (indented under their path) and waiting points.
 */
export class TracePrinter {
  readonly #out: (line: string) => void;
  readonly #verbose: boolean;

  constructor(out: (line: string) => void, options: { verbose?: boolean } = {}) {
    this.#out = out;
    this.#verbose = options.verbose ?? true;
  }

  /** Prints one event: as a run emits it, or as recorders get it (redacted). */
  print(event: WorkflowEvent | TraceEvent): void {
    const e = event as (WorkflowEvent | TraceEvent) & Fields;
    const lane = e.path === 'root' ? '' : `${String(e.path).replace(/^root\//, '')} │ `;
    const pad = `  ${lane}`;
    switch (event.type) {
      case 'node.completed': {
        const detail = stepDetail(e.delta as { set: Fields } | null);
        return this.#out(`${pad}✓ ${String(e.nodeId).padEnd(14)} ${String(e.durationMs).padStart(5)} ms${detail ? `  ${detail}` : ''}`);
      }
      case 'node.failed':
      case 'route.failed':
        return this.#out(`${pad}✗ ${String(e.nodeId).padEnd(14)} ${excerpt((e.error as { message?: string }).message, 90)}`);
      case 'edge.traversed':
        if (this.#verbose && e.kind === 'conditional' && e.routeKey !== e.to) {
          this.#out(`${pad}  ↳ ${String(e.to === '__end__' ? 'END' : e.to)}${e.routeKey ? ` (${String(e.routeKey)})` : ''}`);
        }
        return;
      case 'route.unmatched': {
        const keys = (e.routeKeys as string[] | undefined) ?? [];
        return this.#out(`${pad}  ⚠ ${String(e.nodeId)}: router answered ${JSON.stringify(e.answer)}, not in its route map (${keys.join(', ')}); group skipped`);
      }
      case 'run.waiting':
        return this.#out(`${pad}⏸ waiting at ${String(e.nodeId)}: ${String(e.reason)}`);
      case 'run.started':
        if (lane) this.#out(`${pad}┌ specialist ${String(e.graph)}: ${excerpt((e.request as { input?: string }).input, 60)}`);
        return;
      case 'specialist.completed':
        return this.#out(`${pad}  ⇲ ${String(e.kind)}[${Number(e.index) + 1}] ${String(e.status)}${e.needsHuman ? ' (needs a person)' : ''}${e.status !== 'completed' && e.reason ? `: ${excerpt(String(e.reason), 80)}` : ''}`);
      case 'specialist.retrying':
        return this.#out(`${pad}  ↻ ${String(e.kind)}[${Number(e.index) + 1}] attempt ${String(e.attempt)}: ${excerpt(String(e.reason), 80)}`);
      case 'specialist.waiting':
        return this.#out(`${pad}  ⏸ ${String(e.kind)}[${Number(e.index) + 1}] waits at ${String(e.waitsAt)}`);
      case 'tool.call':
      case 'mcp.call':
        if (this.#verbose) this.#out(`${pad}    · ${event.type} ${excerpt(JSON.stringify({ ...e, type: undefined, runId: undefined, seq: undefined, at: undefined, traceId: undefined, spanId: undefined, parentSpanId: undefined, path: undefined, nodeId: undefined }), 80)}`);
        return;
      default:
        return;
    }
  }
}
