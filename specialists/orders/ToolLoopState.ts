import type { WorkflowContext } from 'switchboard/engine';
import { z } from 'zod';

/** A tool call `tool_plan` decided on and `tool_execute` will run; stored under `pendingToolCall`. */
export const PlannedToolCall = z.object({
  callId: z.string().min(1),
  name: z.string().min(1),
  /** The arguments as the planner produced them (parsed by the tool's schema only when executed). */
  arguments: z.unknown(),
});
/** A planned tool call (see {@link PlannedToolCall}). */
export type PlannedToolCall = z.infer<typeof PlannedToolCall>;

/** Why a call was refused or failed; the agent layer's codes plus the tool loop's own. */
export const ObservationCode = z.enum([
  'tool_not_allowed',
  'invalid_tool_arguments',
  'tool_out_of_order',
  'duplicate_tool_call',
  'tool_timeout',
  'tool_failed',
]);
/** Why a call was refused or failed (see {@link ObservationCode}). */
export type ObservationCode = z.infer<typeof ObservationCode>;

/** The outcome of one executed (or refused) call, appended to `toolObservations`. */
export const ToolObservation = z.discriminatedUnion('ok', [
  z.object({ round: z.number().int().positive(), callId: z.string(), name: z.string(), arguments: z.unknown(), ok: z.literal(true), output: z.unknown() }),
  z.object({
    round: z.number().int().positive(),
    callId: z.string(),
    name: z.string(),
    arguments: z.unknown(),
    ok: z.literal(false),
    code: ObservationCode,
    /** What went wrong and what to do about it. */
    error: z.string(),
    /** Whether the same call may succeed if made again (a timeout: yes; a malformed id: no). */
    retryable: z.boolean(),
  }),
]);
/** The outcome of one tool call (see {@link ToolObservation}). */
export type ToolObservation = z.infer<typeof ToolObservation>;

/** What `tool_plan` decided; stored under `toolPlan` and read by {@link toolPlanRouter}. */
export const ToolPlan = z.object({
  /** `call`: run `pendingToolCall`; `answer`: `text` is the answer; `ask`: `text` asks the customer for the order number; `budget_spent`: the tool budget is used up. */
  action: z.enum(['call', 'answer', 'ask', 'budget_spent']),
  call: PlannedToolCall.optional(),
  text: z.string().optional(),
  reason: z.string().optional(),
});
/** What `tool_plan` decided (see {@link ToolPlan}). */
export type ToolPlan = z.infer<typeof ToolPlan>;

/** The observations recorded so far in this run, oldest first. */
export function toolObservationsOf(ctx: WorkflowContext): ToolObservation[] {
  return z.array(ToolObservation).safeParse(ctx.get('toolObservations')).data ?? [];
}

/** Tool rounds (executions of `tool_execute`) so far in this run. */
export function toolRoundsOf(ctx: WorkflowContext): number {
  return z.number().int().nonnegative().safeParse(ctx.get('toolRounds')).data ?? 0;
}

/** The `orderId` of a call's arguments, when it has a string one. */
export function orderIdArg(args: unknown): string | undefined {
  return z.object({ orderId: z.string() }).safeParse(args).data?.orderId;
}

/** A stable text for a call's name and arguments (object keys sorted), used to detect repeats. */
export function callSignature(name: string, args: unknown): string {
  const canonical = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(canonical)
      : v !== null && typeof v === 'object'
        ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, canonical((v as Record<string, unknown>)[k])]))
        : v;
  return `${name} ${JSON.stringify(canonical(args) ?? null)}`;
}
