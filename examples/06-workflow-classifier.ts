/**
 * A typed workflow whose classifier publishes its confidence through the context (updateContext):
 * the label flows on as the next step's input, the confidence as metadata a later step reads.
 * Run: npx tsx examples/06-workflow-classifier.ts
 */
import { z } from 'zod';
import { Workflow, contextKey, step } from 'switchboard';

const CONFIDENCE = contextKey('confidence', z.number().min(0).max(1));

const classify = step(
  'classify',
  (_ctx, text: string) => (/refund|charge|invoice/i.test(text) ? 'billing' : /broken|error|crash/i.test(text) ? 'technical' : 'general'),
  {
    output: z.enum(['billing', 'technical', 'general']),
    // The label goes on as the output; how sure the classifier was goes into the context.
    updateContext: (ctx, label) => ctx.mutate().with(CONFIDENCE, label === 'general' ? 0.4 : 0.9).build(),
  },
);
const answer = step('answer', (ctx, label: string) => {
  const confidence = ctx.require(CONFIDENCE);
  return confidence < 0.5 ? `Not sure (${confidence}); a person will look at it.` : `Routed to the ${label} team (confidence ${confidence}).`;
});

const triage = Workflow.define<string>('triage').step(classify).then(answer);
for (const message of ['I was charged twice', 'hello there']) {
  const run = await triage.run(message);
  console.log(`${message} → ${String(run.output)} [${run.path.join(' → ')}]`);
}
