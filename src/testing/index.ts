/** A ModelClient that plays scripted turns and fails loudly on an unexpected or unconsumed turn. */
export { ScriptedModel, ScriptedTurn } from './ScriptedModel.js';
/** A ScriptedModel's script did not match the calls it received. */
export { ScriptMismatchError } from './ScriptMismatchError.js';
/** An OpenAI-compatible chat completions server on 127.0.0.1 for tests of the real openai client. */
export {
  startFakeOpenAIServer,
  type FakeOpenAIServer,
  type FakeReply,
  type FakeAnswer,
  type FakeFailure,
  type FakeRequest,
} from './FakeOpenAIServer.js';
/** Path tests for a graph with `@xstate/graph`: generated paths with their hops, and the hops no path covers. */
export {
  graphPaths,
  graphPathOptions,
  graphPathEvents,
  graphStateKey,
  graphHops,
  uncoveredHops,
  type GraphPath,
  type GraphHop,
  type GraphPathOptions,
} from './graphPaths.js';
/** A graph's machine without invoked actors, for `createTestModel`. */
export { graphModel } from './graphModel.js';
