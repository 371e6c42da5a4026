/** The graph engine: build a StateGraph or SequentialWorkflow, run it, stream it, or take its XState machine. */
export { StateGraph, type StateGraphOptions } from './graph/StateGraph.js';
/** Runs nodes one after another with the same handoff as StateGraph. */
export { SequentialWorkflow } from './graph/SequentialWorkflow.js';
/** A workflow used as an agent (and as a node of another graph). */
export { WorkflowAgent } from './graph/WorkflowAgent.js';
/** What nodes, routers and conditions receive: shared state, run id, signal, session. */
export { WorkflowContext } from './graph/WorkflowContext.js';
/** The shared state map, which records the keys each step changes. */
export { SharedState, type StateDelta } from './graph/SharedState.js';
/** The id that ends a graph. */
export { END } from './graph/END.js';
/** Serializes a persisted snapshot, naming the key that is not JSON. */
export { serializeSnapshot, assertJson } from './graph/assertJson.js';
/** Narrows a workflow event to one of the engine's event types. */
export { isEngineEvent } from './graph/WorkflowEvent.js';

/** The base class of every Switchboard error. */
export { SwitchboardError, type SwitchboardErrorCode, type ErrorFault, type SerializedError } from './errors/SwitchboardError.js';
/** A graph or workflow was defined or configured wrongly. */
export { GraphDefinitionError } from './errors/GraphDefinitionError.js';
/** A node, router or condition failed during a run. */
export { WorkflowExecutionError } from './errors/WorkflowExecutionError.js';
/** A run was cancelled (name `AbortError`). */
export { WorkflowCancelledError } from './errors/WorkflowCancelledError.js';

/** Node, request, result, router and condition types. */
export type {
  AgentNode,
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
/** Run options and the injectable clock. */
export type { RunOptions, Clock } from './graph/RunOptions.js';
/** The outcome of a run. */
export type { WorkflowRun, RunStatus } from './graph/WorkflowRun.js';
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
  EdgeTraversedEvent,
  RunCompletedEvent,
  NodeCustomEvent,
} from './graph/WorkflowEvent.js';
/** The common shape of StateGraph and SequentialWorkflow. */
export type { Workflow } from './graph/Workflow.js';
/** The compiled machine and its context, input and output. */
export type { GraphMachine } from './graph/compileMachine.js';
export type { GraphMachineContext, GraphMachineInput, GraphMachineOutput } from './graph/GraphMachineContext.js';

/** A node that makes the run wait for a human reply. */
export { humanNode, isHumanNode, type HumanNode, type HumanNodeOptions } from './graph/humanNode.js';
/** Continues a stored run: with a reply when it waits, without one when it was interrupted. */
export { resumeRun, type ResumeEvent } from './graph/durable/resumeRun.js';
/** Marks runs whose process died as interrupted and continues them. */
export { recoverRuns, isOrphaned, type RecoverOptions, type RecoveryOutcome } from './graph/durable/recoverRuns.js';
/** Cancels a stored run. */
export { cancelRun } from './graph/durable/cancelRun.js';
/** Start, resume, recover, cancel and list the stored runs of a set of graphs. */
export { RunManager, type RunManagerOptions } from './graph/durable/RunManager.js';
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
/** Removes secrets, inline images and `__` keys from values before they are stored or sent. */
export { redactForOutput, secretValues } from './trace/redact.js';
