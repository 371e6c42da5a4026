import { z } from 'zod';
import { StoredRunStatus } from '../persistence/RunStore.js';
import { JSON_SCHEMA_VERSION } from './jsonSchemaVersion.js';

/** Token counts of a model call, or summed over a span and everything under it. */
export const TokenTotalsJson = z.object({
  input: z.number().int().nonnegative(),
  output: z.number().int().nonnegative(),
  total: z.number().int().nonnegative(),
});
/** Token counts of a model call, or summed over a span and everything under it. */
export type TokenTotalsJson = z.infer<typeof TokenTotalsJson>;

/**
 * What a span stands for: the run itself (`run`), one node execution (`node`), one model call
 * (`model`), one tool call (`tool`), one MCP request made by a tool call (`mcp`), or one specialist
 * run a coordinator node dispatched (`specialist`, its nodes nested under it).
 */
export const SpanKindJson = z.enum(['run', 'node', 'model', 'tool', 'mcp', 'specialist']);
/** What a span stands for. */
export type SpanKindJson = z.infer<typeof SpanKindJson>;

/**
 * How a span ended: `ok`, `error` (a failed node, tool, MCP request or model call; a run that ended
 * failed, max-steps, aborted or budget-exceeded), `cancelled`, `waiting` (a human node or a run
 * waiting for a reply), or `running` (no end event yet: a live run).
 */
export const SpanStatusJson = z.enum(['ok', 'error', 'cancelled', 'waiting', 'running']);
/** How a span ended. */
export type SpanStatusJson = z.infer<typeof SpanStatusJson>;

/** One bar of a run's waterfall. */
export const SpanJson = z.object({
  /** Unique in its run; children name it as `parentId`. */
  id: z.string(),
  parentId: z.string().nullable(),
  kind: SpanKindJson,
  /** The node id; `<agent> · <model> #<iteration>`; the tool's name; `<method> <tool>` for MCP; `<lane> · <graph>` for a specialist (`tool[2] · tool`); the graph's name for the run. */
  name: z.string(),
  nodeId: z.string().nullable(),
  /** The event lane: `root`, or a specialist's such as `root/tool[2]`. */
  path: z.string(),
  /** Nesting level (the run is 0). */
  depth: z.number().int().nonnegative(),
  startMs: z.number().nonnegative().describe('ms from the run\'s first event to the span\'s start'),
  durationMs: z.number().nonnegative().nullable().describe('ms from start to end; null while it runs'),
  status: SpanStatusJson,
  /** The model tokens of this span and every span under it. */
  tokens: TokenTotalsJson,
  startSeq: z.number().int().positive(),
  endSeq: z.number().int().positive().nullable(),
});
/** One bar of a run's waterfall. */
export type SpanJson = z.infer<typeof SpanJson>;

/**
 * A run's span waterfall (`GET /api/runs/:runId/spans`), built from its events only, so a live run
 * and a stored one give the same spans for the same events: the spans in tree order (each parent
 * before its children, siblings by start), with the run's token totals (the sum over its model calls).
 */
export const RunSpansJson = z.object({
  schemaVersion: z.literal(JSON_SCHEMA_VERSION),
  runId: z.string(),
  /** The stored run's status when read from a store; null when built from events alone. */
  status: StoredRunStatus.nullable(),
  startedAt: z.number().nullable().describe('ms since the epoch of the first event; null without events'),
  durationMs: z.number().nonnegative().describe('ms from the first to the last event'),
  tokens: TokenTotalsJson,
  modelCalls: z.number().int().nonnegative(),
  toolCalls: z.number().int().nonnegative(),
  mcpCalls: z.number().int().nonnegative(),
  spans: z.array(SpanJson),
});
/** A run's span waterfall. */
export type RunSpansJson = z.infer<typeof RunSpansJson>;
