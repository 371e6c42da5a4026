/** Context keys the workflow engine itself writes (besides `AgentContext`'s well-known keys). */
export const WORKFLOW_KEYS = {
  /** Loop passes made so far in the run by loops that end on a condition (the fuse counts them; `times(n)` passes are not). */
  loopPasses: 'workflow.loopPasses',
  /** The fuse: at most this many loop passes per run (`maxIterations`, default 100). */
  maxIterations: 'workflow.maxIterations',
  /** The error an `onError` recovery is handling: `{ step, name, code, message }`. */
  error: 'workflow.error',
} as const;

/** The default loop fuse. */
export const DEFAULT_LOOP_FUSE = 100;

/** Where the loops' pass counts are kept (one key per loop node). */
export const LOOP_KEY_PREFIX = 'workflow.loop:';
/** The pass count of one loop. */
export const loopKey = (loop: string): string => `${LOOP_KEY_PREFIX}${loop}`;
/** Retries a gate has made. */
export const gateKey = (gate: string): string => `workflow.gate:${gate}`;
/** Branch outputs of a fork while it runs. */
export const forkKey = (fork: string): string => `workflow.fork:${fork}`;
/** The person's reply taken by a waiting fan-out, for its first waiting item. */
export const fanOutReplyKey = (fork: string): string => `workflow.fork:${fork}:reply`;

/** The snapshot of a sub-workflow that waits for a person, held while its parent waits (by the parent's step node id). */
export const heldChildKey = (step: string): string => `workflow.sub:${step}`;
/** The person's reply for a waiting sub-workflow, taken by the parent's wait and handed to the child. */
export const childReplyKey = (step: string): string => `workflow.sub:${step}:reply`;

/** The route a node answers to end the run at once (abort, terminate, spent fuse). */
export const END_ROUTE = 'workflow:end';

/** How a run was ended early, as the last node's `rawResponse` carries it. */
export interface EarlyEnd {
  route: typeof END_ROUTE;
  end: 'aborted' | 'completed' | 'failed' | 'max-steps';
  message?: string;
}
