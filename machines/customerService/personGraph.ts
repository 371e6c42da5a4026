import { StateGraph } from 'switchboard/engine';
import { requestHandoff } from '../../specialists/shared/Handoff.js';

/**
 * The `human` task of a composite request as a subgraph: the part of the message a person must
 * handle (a dispute, a complaint, a request for a person). Its one node records a handoff with
 * that part as the reason, so the coordinator reports the task as needing a person while the
 * other tasks of the message are answered.
 *
 * @example
 * const run = await personGraph().run('I was charged twice for SO20261001');
 * run.state.get('handoff'); // { reason: 'the customer asks for a person', node: 'person' }
 */
export function personGraph(): StateGraph {
  return new StateGraph({ name: 'human', maxSteps: 2 })
    .addNode('person', (ctx, request) => {
      requestHandoff(ctx, 'the customer asks for a person', 'person');
      return null;
    })
    .start('person');
}
