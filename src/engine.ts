// The `switchboard/engine` entry: the StateGraph engine, agents, models, the coordinator, run stores,
// traces, the JSON shapes and input checks. It leaves out the typed Workflow builder, the transition
// analytics and the workbench server (hono), which only `switchboard` exports, so a graphs module
// that imports from here (as machines/ and specialists/ do) loads about 280 modules instead of 370
// (dependencies included), which the CLI pays for at every start. Everything here is also exported by `switchboard`.

/** The graph engine: build a StateGraph or SequentialWorkflow, run it, stream it, or take its XState machine. */
export { StateGraph, type StateGraphOptions, type NodeIds } from './graph/StateGraph.js';
/** Runs nodes one after another with the same handoff as StateGraph. */
export { SequentialWorkflow } from './graph/SequentialWorkflow.js';
/** A workflow used as an agent (and as a node of another graph). */
export { WorkflowAgent } from './graph/WorkflowAgent.js';
/** What nodes, routers and conditions receive: shared state, run id, signal, session. */
export { WorkflowContext } from './graph/WorkflowContext.js';
/** The shared state map, which records the keys each step changes. */
export { SharedState, type StateDelta } from './graph/SharedState.js';
/** Reads the node ids of a machine context's `path` (an append-only chunked log) as one array. */
export { readPath, type PathLog } from './graph/PathLog.js';
/** Declares a state key with a reducer (`'replace'`, `'append'` or a function) for `new StateGraph({ state })`. */
export {
  withReducer,
  type StateReducer,
  type ReducedKey,
  type StateKeySpec,
  type StateSpec,
  type StateValueOf,
  type StateUpdateOf,
  type StateValues,
  type StateUpdates,
} from './state/StateSpec.js';
/** What a graph's shared state may hold, checked at every write (declared keys and reducers, or any JSON). */
export { StateModel } from './state/StateModel.js';
/** The typed context of a graph that declares its state; the engine's own state keys. */
export { type TypedContext, type NodeContext, type EngineState } from './state/TypedContext.js';
/** A state write was refused: schema (`state_invalid`), not JSON (`state_not_json`) or undeclared key (`state_undeclared`). */
export { StateValidationError, type StateValidationCode } from './errors/StateValidationError.js';
/** The id that ends a graph. */
export { END } from './graph/END.js';
/** Serializes a persisted snapshot, naming the key that is not JSON. */
export { serializeSnapshot, assertJson } from './graph/assertJson.js';
/** Narrows a workflow event to one of the engine's event types. */
export { isEngineEvent } from './graph/WorkflowEvent.js';

/** Every error code Switchboard uses, as a list. */
export { SWITCHBOARD_ERROR_CODES } from './errors/SwitchboardError.js';
/** The base class of every Switchboard error. */
export { SwitchboardError, type SwitchboardErrorCode, type ErrorFault, type SerializedError } from './errors/SwitchboardError.js';
/** A graph or workflow was defined or configured wrongly. */
export { GraphDefinitionError } from './errors/GraphDefinitionError.js';
/** A command was called wrongly (unknown graph or scenario, bad option value): code `usage`. */
export { UsageError } from './errors/UsageError.js';
/** A node, router or condition failed during a run. */
export { WorkflowExecutionError } from './errors/WorkflowExecutionError.js';
/** A callback that observes a run (recorder, onEvent, inspect, clock, reason) failed; the run went on without it. */
export { CallbackError, type CallbackKind } from './errors/CallbackError.js';
/** A run was cancelled (name `AbortError`). */
export { WorkflowCancelledError } from './errors/WorkflowCancelledError.js';

/** Node, request, result, router and condition types. */
export type {
  AgentRequest,
  AgentResult,
  Usage,
  NodeFunction,
  NodeOutput,
  GraphNode,
  NodeEmit,
  NodeEmittedEvent,
  StateRouter,
  StateCondition,
} from './graph/AgentNode.js';
/** Run options, the injectable clock and the XState inspection observer type. */
export type { RunOptions, Clock, InspectObserver } from './graph/RunOptions.js';
/** The outcome of a run. */
export type { WorkflowRun, RunStatus, BudgetSpent } from './graph/WorkflowRun.js';
/** Run budgets (`RunOptions.budget`): limits, what a stopped run reports, and the shared-state keys of what was spent. */
export {
  ACCUMULATED_TOKENS,
  ACCUMULATED_COST,
  BUDGET_EXCEEDED,
  describeExceeded,
  type BudgetOptions,
  type BudgetExceeded,
  type BudgetName,
} from './budget/Budget.js';
/** Model prices per million tokens: the defaults for common models, and how a model finds its price. */
export { DEFAULT_PRICES, ModelPrice, PriceTable, priceFor, costOf } from './budget/PriceTable.js';
/** For custom model clients: check the run's budget before a call and add its usage after (the built-in clients do). */
export { beforeModelCall, recordModelUsage } from './budget/BudgetMeter.js';
/** Step runners: how a leaf step executes (in process, or checkpointed per step in a store), and the operator's view of the records. */
export { localStepRunner, type StepRunner, type StepCall } from './steps/StepRunner.js';
export { checkpointingStepRunner } from './steps/checkpointingStepRunner.js';
export { CheckpointManager, type RunStepState } from './steps/CheckpointManager.js';
export { StepFailedError } from './steps/StepFailedError.js';
export { retryRun, type RetryOutcome } from './steps/retryRun.js';
/** A step as `checkpointingStepRunner` records it in a store. */
export { StepRecord, StepStatus } from './persistence/RunStore.js';
/** A budget option out of range, a model call refused by a spent budget, or a model with no price under maxCost. */
export { BudgetError, type BudgetErrorCode } from './errors/BudgetError.js';
/** Everything a run reports. */
export type {
  WorkflowEvent,
  EngineEvent,
  EventEnvelope,
  EdgeKind,
  RunStartedEvent,
  NodeStartedEvent,
  NodeCompletedEvent,
  NodeFailedEvent,
  NodeCancelledEvent,
  RouteFailedEvent,
  RouteUnmatchedEvent,
  EdgeTraversedEvent,
  RunWaitingEvent,
  RunResumedEvent,
  RunCompletedEvent,
  BudgetExceededEvent,
  CallbackFailedEvent,
  NodeCustomEvent,
} from './graph/WorkflowEvent.js';
/** The common shape of StateGraph and SequentialWorkflow (what the CLI, the workbench, RunManager and coordinators accept as a graph). */
export type { RunnableGraph } from './graph/RunnableGraph.js';
/** The compiled machine and its context, input and output. */
export type { GraphMachine, GraphStateValue } from './graph/compileMachine.js';
export type { GraphMachineContext, GraphMachineInput, GraphMachineOutput, QueuedSpecialist, WaitingInfo, WaitingSpecialist } from './graph/GraphMachineContext.js';

/** A node that makes the run wait for a human reply. */
export { humanNode, isHumanNode, type HumanNode, type HumanNodeOptions, type ReplyTo, type ReplyCheck } from './graph/humanNode.js';
/** A node whose implementation is loaded (e.g. with a dynamic import) the first time it runs; the graph's shape needs none of it. */
export { lazyNode } from './graph/lazyNode.js';
/** A node that runs with the model its run chose (the run's state key `model`), built once per model of a catalog. */
export { modelNode, modelNamesOf, RUN_MODEL_KEY } from './graph/modelNode.js';
/** The human node a waiting run (or the specialist it waits for) waits at, from its persisted snapshot. */
export { waitingHuman, type WaitingHuman } from './graph/waitingHuman.js';
/** Continues a stored run: with a reply when it waits, without one when it was interrupted. */
export { resumeRun, type ResumeEvent } from './graph/durable/resumeRun.js';
/** Marks runs whose process died as interrupted and continues them. */
export { recoverRuns, isOrphaned, type RecoverOptions, type RecoveryOutcome } from './graph/durable/recoverRuns.js';
/** Cancels a stored run. */
export { cancelRun } from './graph/durable/cancelRun.js';
/** Start, resume, recover, cancel and list the stored runs of a set of graphs. */
export { RunManager, type RunManagerOptions } from './graph/durable/RunManager.js';
/** The run options a queued run keeps (they travel in its stored snapshot). */
export type { QueuedRunOptions } from './graph/durable/insertQueuedRun.js';
/** Options that make runs durable. */
export type { DurableOptions, ResumeOptions } from './graph/durable/DurableOptions.js';
/** The structural hash a stored run is checked against when it resumes. */
export { graphHash } from './graph/graphHash.js';
/** The side-effect journal interface behind `ctx.once`. */
export type { Journal } from './graph/WorkflowContext.js';

/** Where runs live. */
export {
  StoredRunStatus,
  RunRecord,
  StoredEvent,
  SNAPSHOT_SCHEMA_VERSION,
  type RunStore,
  type NewRun,
  type RunPatch,
  type RunFilter,
} from './persistence/RunStore.js';
/** Step records: what a checkpoint changed in a run's snapshot (the rows `RunStore.appendSteps` writes), and how they are applied. */
export { diffSnapshot, applySnapshotPatch, type SnapshotPatch } from './persistence/snapshotPatch.js';
/** A run store in process memory (same contract), and the one runs without a store keep their waits in. */
export { MemoryRunStore, defaultMemoryStore, type MemoryRunStoreOptions } from './persistence/MemoryRunStore.js';
/** The embedded SQLite run store (the default). */
export { SqliteRunStore, defaultSqliteFile, type SqliteRunStoreOptions } from './persistence/SqliteRunStore.js';
/** The PostgreSQL run store for shared deployments. */
export { PostgresRunStore, type PostgresRunStoreOptions } from './persistence/PostgresRunStore.js';
/** Picks the store from SWITCHBOARD_DATABASE_URL / SWITCHBOARD_DB. */
export { createStoreFromEnv } from './persistence/createStoreFromEnv.js';
/** A store failed (configuration, connection, corrupt row). */
export { StoreError } from './persistence/StoreError.js';
/** A stored run cannot do what was asked in its current state. */
export { RunStateError, type RunStateErrorCode } from './errors/RunStateError.js';
/** Removes secrets, credentials, image bytes and `__` keys from values before they are stored or sent. */
export { redactForOutput, secretValues, scrubString, REDACTED } from './trace/redact.js';
/** An event as it leaves a run (JSON, redacted), and the function that makes one. */
export { redactEvent, TraceEvent } from './trace/TraceEvent.js';
/** Feeds a stored run's event log into recorders (e.g. export a finished run to OpenTelemetry). */
export { replayRun } from './trace/replayRun.js';
/** The full state of a stored run after any step (0 = before the first node), rebuilt from its event log. */
export { stateAt, type RunStateAt } from './history/stateAt.js';
/** Starts a new stored run from a step of another (optionally with edited state), replaying the parent's steps up to it. */
export { forkRun, type ForkOptions } from './history/forkRun.js';
/** Where a forked run came from: its parent run and the step it was forked at. */
export type { ForkLink } from './graph/WorkflowEvent.js';
/** What a run hands its redacted events to (`RunOptions.recorders`). */
export type { TraceRecorder } from './trace/TraceRecorder.js';
/** The light path of a recorder that needs only step transitions (`TraceRecorder.hops`): unstamped events, the time on request. */
export type { HopListener, HopEvent, HopTime } from './trace/HopListener.js';
/** Keeps a run's redacted events in memory. */
export { MemoryRecorder } from './trace/MemoryRecorder.js';
/** Appends a run's redacted events to a JSON Lines file. */
export { JsonlRecorder } from './trace/JsonlRecorder.js';
/** Turns a run's events into OpenTelemetry spans: run, node, model call, tool call. */
export { OpenTelemetryRecorder, type OpenTelemetryRecorderOptions } from './trace/OpenTelemetryRecorder.js';
/** A compiled graph's nodes and prioritized hops, read from its XState machine. */
export { machineGraph, type MachineGraph, type MachineNode, type MachineEdge, type MachineEdgeKind } from './trace/machineGraph.js';
/** A compiled graph's machine as JSON: every state, guard (with params), action and actor name. */
export { machineToJson, FUNCTION_MARKER, type MachineJson } from './trace/machineToJson.js';
/** A compiled graph's machine as a Mermaid stateDiagram-v2 with route keys on conditional edges. */
export { machineToMermaid, type MermaidOptions } from './trace/machineToMermaid.js';
/** A canned request the workbench offers as a button (the graphs module's `scenarios` export). */
export { Scenario } from './server/Scenario.js';
/** Stored runs as the workbench lists and shows them (the `RunSummaryJson` and `RunDetailJson` shapes). */
export type { RunSummaryJson as RunSummary, RunDetailJson as RunDetail } from './json/RunSummaryJson.js';
/** The version every JSON shape below carries as `schemaVersion` (CLI `--json` and the HTTP API). */
export { JSON_SCHEMA_VERSION } from './json/jsonSchemaVersion.js';
/** A run as one leg left it (`run/start/resume --json`, `POST /api/runs?wait=true`), and the answer to a start that does not wait. */
export { RunJson, RunAcceptedJson, toRunJson } from './json/RunJson.js';
/** A stored run as lists show it (`runs --json`, `GET /api/runs`) and in full (`show --json`, `GET /api/runs/:id`). */
export { RunSummaryJson, RunDetailJson } from './json/RunSummaryJson.js';
/** A run's event as the CLI and the HTTP API print it (envelope plus the fields of its type). */
export { EventJson, toEventJson } from './json/EventJson.js';
/** An error as the CLI prints it under `--json` and the HTTP API answers it. */
export { ErrorJson, errorJson } from './json/ErrorJson.js';
/** A stored run's state at one step, as `state --json` and `GET /api/runs/:id/state?at=` answer it. */
export { RunStateJson, toRunStateJson } from './json/RunStateJson.js';
/** A run's span waterfall (`GET /api/runs/:id/spans`): run, node, model, tool, MCP and specialist spans with start offsets, latency and token totals. */
export { RunSpansJson, SpanJson, SpanKindJson, SpanStatusJson, TokenTotalsJson } from './json/RunSpansJson.js';
/** Builds a run's span waterfall from its events (stored or live): the same events give the same spans. */
export { runSpans } from './trace/runSpans.js';

/** An input was refused before anything ran or was stored (CLI exit 2, HTTP 400). */
export { InputError } from './input/InputError.js';
/** The message a run starts with and a person's reply, as the CLI and the HTTP API accept them. */
export { MessageText, ReplyText, MAX_TEXT_CHARS } from './input/RunText.js';
/** The free text runs are searched for (`runs --search`, `GET /api/runs?search=`): matched literally in the run id, input and answer. */
export { RunSearchText, MAX_SEARCH_CHARS } from './input/RunSearchText.js';
/** A person's reply: text under the `ReplyText` rules, or a JSON value for a node with a reply schema. */
export { ReplyValue } from './input/ReplyValue.js';
/** Tool rounds a run may use: a whole number from 1 to 20 (`--tool-budget`, metadata `toolBudget`). */
export { ToolBudget, TOOL_BUDGET_RANGE } from './input/ToolBudget.js';
/** A run's budgets as the CLI (`--max-cost`, `--max-tokens`, `--max-iterations`, `--max-duration`) and `POST /api/runs` (`budget`) take them. */
export { RunBudgetInput } from './input/RunBudgetInput.js';
/** A schema for a whole number in a range, as a number or plain decimal digits. */
export { wholeNumber } from './input/wholeNumber.js';
/** A schema for fault names checked against the names the graphs declare. */
export { faultNames } from './input/faultNames.js';
/** Reads a picture file with a hard bound, refusing anything but a regular PNG, JPEG, GIF or WebP file. */
export { readImageFile, type ImageFile, type ReadImageFileOptions } from './input/readImageFile.js';
/** The accepted image type of some bytes, by their signature; the accepted types and size. */
export { imageMediaType, IMAGE_MEDIA_TYPES, MAX_IMAGE_BYTES, type ImageMediaType } from './input/imageMediaType.js';

/** Defines a tool: zod-parsed arguments, a zod-derived JSON schema, failures fed back as observations. */
export { tool, toolJsonSchema, type Tool, type ToolConfig, type ToolContext, type ToolEmittedEvent } from './agent/tool.js';
/** The outcome of one tool call and the observation text the model reads. */
export { ToolResult, toObservation } from './agent/ToolResult.js';
/** A model plus instructions plus tools, running its own decide → act → observe loop. */
export { Agent, DEFAULT_MAX_ITERATIONS, type AgentOptions } from './agent/Agent.js';
/** One conversation with an agent, with its own memory: `run()` and `stream()`. */
export { AgentSession, type AgentRunOptions, type AgentInput } from './agent/AgentSession.js';
/** What `session.run()` returns: an AgentResult with status, tool calls and results, usage and steps. */
export type { AgentRunResult, AgentRunStatus, ToolCallRecord } from './agent/AgentRunResult.js';
/** What `allowedTools(state)` receives, and the accepted forms of `allowedTools`. */
export type { AgentTurnState, AllowedTools } from './agent/AgentTurnState.js';
/** Everything `session.stream()` yields; the last event is `final`. */
export type {
  AgentEvent,
  ModelRequestEvent,
  ModelDeltaEvent,
  ModelResponseEvent,
  ToolCallEvent,
  ToolResultEvent,
  HandoffStartedEvent,
  HandoffCompletedEvent,
  FinalEvent,
} from './agent/AgentEvent.js';
/** The node contract (type) and `new AgentNode(agent)`: an agent as a graph node with a fresh session per execution. */
export { AgentNode } from './agent/AgentNode.js';
/** The `input` / `output` mappers of an agent node: its input from the state, its result back into it. */
export type { AgentNodeOptions, AgentNodeInput, AgentNodeWrites } from './agent/AgentNodeOptions.js';
/** A graph node that runs one AgentSession; its stream path forwards agent events and returns the result. */
export { RuntimeAgentNode } from './agent/RuntimeAgentNode.js';
/** An agent exposed as a tool of another agent, under a handoff policy. */
export { subagentTool, subagentToolName, type SubagentToolOptions, type SubagentArgs } from './agent/subagentTool.js';
/** The rules of a subagent handoff: depth, retries, timeout, allow/deny lists, fail or fallback. */
export { HandoffPolicy, type HandoffPolicyOptions, type HandoffFailureAction } from './agent/HandoffPolicy.js';

/** The interface every chat model implements, and what it is called with and yields. */
export type { ModelClient, ModelRequest, ModelStreamEvent, ModelToolSpec, ToolChoice, ModelResponseFormat } from './model/ModelClient.js';
/** Provider-neutral conversation messages (user messages may carry images), tool calls, usage and responses (zod schemas and types). */
export { ModelMessage, ModelImage, ModelToolCall, ModelUsage, ModelResponse } from './model/ModelMessage.js';
/** A ModelClient on the openai SDK's chat completions, for OpenAI and every compatible server. */
export { OpenAIChatModel, type OpenAIChatModelOptions } from './model/OpenAIChatModel.js';
/** The embedded deterministic model used when there is no API key. */
export { OfflineModel, type OfflineModelOptions } from './model/OfflineModel.js';
/** An agent's offline rule: what it receives and may answer. */
export { OfflineReply, type OfflineRule, type OfflineConversation, type OfflineToolResult } from './model/OfflineRule.js';
/** OpenAIChatModel when OPENAI_API_KEY is set, else OfflineModel. */
export { createModelFromEnv, DEFAULT_MODEL, type ModelFromEnvOptions } from './model/createModelFromEnv.js';
/** The models the environment configures (the hosted ones named in SWITCHBOARD_MODEL / SWITCHBOARD_MODELS, then `offline`). */
export { modelsFromEnv, OFFLINE_MODEL_NAME } from './model/modelsFromEnv.js';
/** Named models a run may choose from; the first is the default. */
export { ModelCatalog, type ModelEntry } from './model/ModelCatalog.js';
/** Checks a run's chosen model against the graphs module's `models` and the graph's own (`--model`, `POST /api/runs` `model`). */
export { checkModelChoice } from './model/checkModelChoice.js';
/** A run named a model that is not offered (`unknown_model`), or one where no model choice is offered (`model_not_offered`). */
export { ModelChoiceError, type ModelChoiceErrorCode } from './errors/ModelChoiceError.js';
/** Default time and retry limits of model calls, and the parser of their environment variables. */
export {
  DEFAULT_MODEL_TIMEOUT_MS,
  DEFAULT_MODEL_IDLE_TIMEOUT_MS,
  DEFAULT_MODEL_MAX_RETRIES,
  modelLimitsFromEnv,
  type ModelLimits,
} from './model/modelLimits.js';

/** An agent, tool, model or handoff policy was configured wrongly. */
export { AgentDefinitionError } from './errors/AgentDefinitionError.js';
/** An agent run did not produce the answer a graph node needed (max iterations, failed repair, cancelled, busy session). */
export { AgentRunError, type AgentRunErrorCode } from './errors/AgentRunError.js';
/** A model call failed after the client's retries, timed out, or was rejected. */
export { ModelError, type ModelErrorCode, type ModelTimeoutLimit } from './errors/ModelError.js';
/** A tool call failed; tools may throw it to say whether a retry can help. */
export { ToolError, type ToolErrorCode } from './errors/ToolError.js';
/** A subagent handoff was denied, failed or timed out. */
export { HandoffError, type HandoffErrorCode } from './errors/HandoffError.js';

/** Splits a request into typed tasks and runs specialist subgraphs as parallel child actors. */
export { Coordinator, type CoordinatorOptions, type TaskPlanner } from './coordinator/Coordinator.js';
/** A coordinator task and a specialist's result. */
export { CoordinatorTask, type TaskResult, type DispatchSummary } from './coordinator/CoordinatorTask.js';
/** What a dispatch does when a specialist fails: onFailure, minCompleted, timeouts, retries. */
export type { OnFailure, FailurePolicy } from './coordinator/FailurePolicy.js';
/** Nodes that compile themselves into XState (the coordinator's dispatch node is one). */
export { COMPILE_NODE, isCompilableNode, type CompilableNode, type NodeCompileScope, type CompiledNodeState } from './graph/CompilableNode.js';
/** A run's place in its trace. */
export { newTraceContext, newSpanId, newTraceId, type TraceContext } from './trace/TraceContext.js';
