import { z } from 'zod';
import type { RunStatus, WorkflowRun } from '../graph/WorkflowRun.js';
import type { ForkLink } from '../graph/WorkflowEvent.js';
import { StoredRunStatus } from '../persistence/RunStore.js';
import { redactForOutput } from '../trace/redact.js';
import { JSON_SCHEMA_VERSION } from './jsonSchemaVersion.js';
import { RunModel, modelOf } from './RunModel.js';

/** A run status as a leg ends: the statuses of `WorkflowRun` (the stored ones but `queued`, `running` and `interrupted`). */
const LegStatus = StoredRunStatus.exclude(['queued', 'running', 'interrupted']);
// The schema lists exactly the statuses a run can end a leg with.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : never) : never;
const legStatusesMatch: Same<z.infer<typeof LegStatus>, RunStatus> = true;
void legStatusesMatch;

/**
 * A run as one leg left it (what `run`, `start`, `resume` and `recover` print with `--json`, and
 * what `POST /api/runs?wait=true` and `POST /api/runs/:id/resume?wait=true` answer): its status,
 * path, steps, answer, the shared state (redacted), the model it ran on, the wait it stopped at and the error it ended with.
 */
export const RunJson = z.object({
  schemaVersion: z.literal(JSON_SCHEMA_VERSION),
  runId: z.string(),
  status: LegStatus,
  path: z.array(z.string()).describe('Node ids in the order they ran'),
  steps: z.number().int().nonnegative(),
  outputText: z.string().nullable().describe('The answer (or, while waiting, what the run asks)'),
  state: z.record(z.string(), z.unknown()).describe('The shared state, secrets and image bytes removed'),
  model: RunModel,
  waiting: z.looseObject({ nodeId: z.string(), reason: z.string() }).nullable().describe('Where the run waits for a reply (a specialist that waits is named too)'),
  error: z.object({ code: z.string(), message: z.string() }).nullable(),
  budgetExceeded: z.looseObject({}).optional().describe('Which budget was spent, its limit and what was spent (status budget-exceeded)'),
  spent: z
    .looseObject({ tokens: z.number(), costUsd: z.number(), iterations: z.number(), durationMs: z.number() })
    .optional()
    .describe('What a run with a budget has spent'),
  parentRunId: z.string().optional().describe('For a fork (`fork`, `POST /api/runs/:id/fork`): the run it was forked from'),
  forkedAt: z.number().int().optional().describe('For a fork: the step of the parent it was forked at'),
});
/** A run as one leg left it. */
export type RunJson = z.infer<typeof RunJson>;

/** The {@link RunJson} of a finished or waiting leg (secrets and images redacted); `forkOf` names a fork's parent. */
export function toRunJson(run: WorkflowRun, forkOf?: ForkLink): RunJson {
  const state = run.state instanceof Map ? Object.fromEntries(run.state) : ((run.state ?? {}) as Record<string, unknown>);
  return redactForOutput({
    schemaVersion: JSON_SCHEMA_VERSION,
    runId: run.runId,
    status: run.status,
    path: run.path,
    steps: run.steps,
    outputText: run.outputText,
    state,
    model: modelOf(state),
    waiting: run.waiting ? { ...run.waiting } : null,
    error: run.error ? { code: run.error.code, message: run.error.message } : null,
    ...(run.budgetExceeded ? { budgetExceeded: run.budgetExceeded } : {}),
    ...(run.spent ? { spent: run.spent } : {}),
    ...(forkOf === undefined ? {} : { parentRunId: forkOf.runId, forkedAt: forkOf.step }),
  }) as RunJson;
}

/** What `POST /api/runs` (and a resume) answers before the leg ends: the run is stored and running (`queued`: a worker of the distributed mode will run it). */
export const RunAcceptedJson = z.object({ schemaVersion: z.literal(JSON_SCHEMA_VERSION), runId: z.string(), status: z.enum(['running', 'queued']) });
/** The answer to a run started or resumed without waiting. */
export type RunAcceptedJson = z.infer<typeof RunAcceptedJson>;
