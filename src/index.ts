// The `switchboard` entry: everything public. The engine (graphs, agents, models, the coordinator,
// stores, traces, JSON shapes, input checks) is also its own, lighter entry, `switchboard/engine`;
// the typed Workflow builder, the distributed run queue (BullMQ, Redis), the transition analytics and
// the workbench server are only here.

/** The engine: StateGraph, SequentialWorkflow, agents, models, the coordinator, stores and traces (see ./engine.ts, also exported as `switchboard/engine`). */
export * from './engine.js';

/** A workflow's immutable, JSON, typed metadata shared by its steps, with the well-known keys as statics. */
export { AgentContext, ContextBuilder, type AnyKey } from './workflow/AgentContext.js';
/** Makes a typed context key: a name and the zod schema its values must pass (checked like a declared state key). */
export { contextKey, type ContextKey } from './workflow/contextKey.js';
/** `ctx.require(key)` found no value under the key. */
export { ContextKeyMissingError } from './workflow/ContextKeyMissingError.js';
/** A gate's decision and the verdict written to `AgentContext.JUDGE_VERDICT`. */
export { GateDecision, JudgeVerdict } from './workflow/JudgeVerdict.js';
/** One unit of a typed workflow (`Step<I, O>`), `step(name, fn, options)` to make one and `noop(name)` to pass the input through. */
export { step, noop, type Step, type StepKind, type StepOptions, type StepInput, type StepOutput } from './workflow/Step.js';
/** Built-in steps: `of`, `retrying`, `outputOf`, `terminate`. */
export { Steps } from './workflow/Steps.js';
/** Thrown by a step to end the run `aborted` with a meaningful output; `WorkflowTermination` is what `Steps.terminate` throws. */
export { WorkflowAbort, WorkflowTermination, type TerminateStatus } from './workflow/WorkflowAbort.js';
/** The typed workflow builder: `Workflow.define<I>(name).step(a).then(b)…`, compiled to a WorkflowGraph and an XState machine on the graph engine. */
export { Workflow, type GatherOutputs } from './workflow/Workflow.js';
/** The chained builders of `branch`, `repeatUntil`, `decision` and `gate`. */
export { BranchBuilder, BranchOtherwise, LoopBuilder, DecisionBuilder, GateBuilder } from './workflow/FlowBuilders.js';
/** The builders behind `Workflow.loop`, `Workflow.parallel` and `Workflow.supervisor`. */
export { LoopShortcut, ParallelShortcut, SupervisorShortcut } from './workflow/WorkflowShortcuts.js';
/** Predicates, error matchers and the recovery of `onError`. */
export type { FlowPredicate, ErrorMatcher } from './workflow/WorkflowBlock.js';
/** A workflow as plain data: nodes, edges, start and finish. */
export type { WorkflowGraph, WorkflowGraphNode, WorkflowGraphEdge, WorkflowNodeType, WorkflowEdgeCondition } from './workflow/WorkflowGraph.js';
/** A workflow run's options and result. */
export type { WorkflowRunOptions, WorkflowResult, WorkflowStatus } from './workflow/runWorkflow.js';
/** A workflow machine's input (`{ input, runId?, context?, maxIterations? }`) and output. */
export type { WorkflowMachineInput, WorkflowMachineOutput } from './workflow/workflowMachine.js';
/** Judges a step's output in `gate(g)`: PASS, FAIL, ESCALATE or TIMEOUT. */
export type { Gate, GateOutcome } from './workflow/Gate.js';
/** What a person answers at a gate that waits for one (`human.reply` with `{ decision, text? }`). */
export { PersonReply } from './workflow/personRouter.js';
/** The name a decision's model call goes by (an OfflineModel rule under it answers offline). */
export { DECISION_AGENT } from './workflow/decide.js';
/** The workflow engine's own context keys and the default loop fuse. */
export { WORKFLOW_KEYS, DEFAULT_LOOP_FUSE } from './workflow/workflowKeys.js';
/** Gates that decide from a jury's mean score: one threshold, or high/low tiers. */
export { JudgeGate, TieredGate } from './workflow/JudgeGate.js';
/** A gate where a person decides, with a stored deadline and an injectable clock. */
export { HumanGate, type HumanGateOptions } from './workflow/HumanGate.js';
/** Judges, juries and what a jury finds (inconclusive judges are left out of the mean). */
export { convene, type Judge, type JudgeScore, type Jury, type JuryFinding } from './workflow/jury.js';
/** Model-backed steps and judges: one chat call, an Agent as a step, a rubric-scoring judge. */
export { chatStep, agentStep, llmJudge } from './workflow/modelSteps.js';
/** Checks, without running anything, that each typed step's output fits the next typed step's input. */
export { assertTypeCompatible } from './workflow/assertTypeCompatible.js';
/** A typed step's output does not fit the next typed step's input. */
export { TypeIncompatibleError } from './workflow/TypeIncompatibleError.js';

/** The distributed mode: runs queued in Redis (BullMQ) and stored in PostgreSQL, for workers on any machine. */
export { RunQueue, type RunQueueOptions, type SweepOutcome } from './queue/RunQueue.js';
/** Takes run jobs and advances each run from its stored snapshot (what `switchboard worker` runs). */
export { RunWorker, type RunWorkerOptions } from './queue/RunWorker.js';
/** What a worker did with one run job. */
export type { LegOutcome } from './queue/advanceRun.js';
/** A coordinator's specialists as stored runs of their own (child jobs on the run queue; `RunWorker` uses it). */
export { storedSpecialistRuns } from './queue/storedSpecialistRuns.js';
/** Where a coordinator's specialists run when not in its process: the seam `ResumeOptions.specialistRuns` takes. */
export { specialistRunId, type SpecialistRuns, type SpecialistTask, type SpecialistOutcome } from './graph/SpecialistRuns.js';
/** The run queue's configuration is wrong or Redis is out of reach. */
export { QueueError } from './queue/QueueError.js';

/** One step transition of a run (`{ runId, workflow, from, to, at, durationMs, tokens, costUsd, nodeType, label }`), its start and end states. */
export { TransitionRecord, START_STATE, END_PREFIX, endState, statusOfState } from './analytics/TransitionRecord.js';
/** Turns a run's events (live or stored) into its transition records. */
export { TransitionTracker, priceTableCost, type TrackedEvent, type CostOf, type CostOptions } from './analytics/TransitionTracker.js';
/** Transition records kept column by column (no object per record until one is read), for a TransitionTracker. */
export { TransitionColumns } from './analytics/TransitionColumns.js';
/** Takes a TransitionTracker's records field by field, with no record object made for them. */
export type { TransitionRun, TransitionSink } from './analytics/TransitionSink.js';
/** A recorder that hands each step transition of a run (and its specialists) to you, or keeps it. */
export { TransitionRecorder, type TransitionRecorderOptions } from './analytics/TransitionRecorder.js';
/** A recorder that appends each step transition of a run to a JSON Lines file. */
export { JsonlTransitionRecorder, type JsonlTransitionRecorderOptions } from './analytics/JsonlTransitionRecorder.js';
/** Reads the records a JsonlTransitionRecorder wrote. */
export { readTransitionsFile } from './analytics/readTransitionsFile.js';
/** The step transitions of stored runs, read from their event logs. */
export { storedTransitions, type StoredTransitionsOptions } from './analytics/storedTransitions.js';
/** The absorbing Markov chain of a workflow estimated from its transitions: matrix, end probabilities, expected steps, thrash, loops. */
export { analyzeTransitions, type TransitionAnalysis, type StateStats } from './analytics/analyzeTransitions.js';
/** The thrash score and loops of an analysis. */
export type { Thrash, Cycle } from './analytics/runSequences.js';
/** Solves a small dense linear system (Gaussian elimination with partial pivoting). */
export { solveLinear } from './analytics/solveLinear.js';
/** An analysed chain as a Mermaid stateDiagram-v2 with edges labelled by probability. */
export { analysisToMermaid, formatProbability } from './analytics/analysisToMermaid.js';
/** Transition analytics got a bad record or a chain that never ends. */
export { AnalyticsError, type AnalyticsErrorCode } from './errors/AnalyticsError.js';

/** The workbench as a hono app (HTTP API, SSE event streams, the page), not yet listening. */
export { createServer, type ServerOptions, type Workbench } from './server/createServer.js';
/** Creates the workbench and listens (127.0.0.1 by default; other hosts require a token). */
export { startServer, DEFAULT_PORT, type StartServerOptions, type RunningServer } from './server/startServer.js';
/** The workbench refused a request or its own configuration. */
export { ServerError, type ServerErrorCode } from './server/ServerError.js';
/** The workbench's running legs did not all end before a stop's wait gave up (`runIds` names them). */
export { DrainTimeoutError } from './server/DrainTimeoutError.js';
/** The body that starts a workbench run, its image upload, and what the run gets about the image (`metadata.image`). */
export { StartRunBody, ImageUpload, type RunImage } from './server/StartRunBody.js';
/** The body that resumes a waiting run through the workbench. */
export { ResumeRunBody } from './server/ResumeRunBody.js';
/** A graph machine's states, guarded hops and human nodes, for drawing. */
export { machineDefinition, type MachineDefinition, type MachineStateInfo, type MachineHop, type MachineHopKind } from './server/machineDefinition.js';
