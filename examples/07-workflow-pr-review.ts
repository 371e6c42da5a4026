/**
 * A pull-request review: a skip branch for trivial changes, and a sub-workflow whose context
 * writes (the risk it found) the next step of the parent reads.
 * Run: npx tsx examples/07-workflow-pr-review.ts
 */
import { z } from 'zod';
import { Workflow, contextKey, step } from 'switchboard';

interface PullRequest {
  title: string;
  files: string[];
  linesChanged: number;
}
const RISK = contextKey('risk', z.enum(['low', 'high']));

const analysis = Workflow.define<PullRequest>('analysis')
  .step(step('scan', (_ctx, pr: PullRequest) => pr))
  .then(
    step('assess', (_ctx, pr: PullRequest) => pr, {
      updateContext: (ctx, pr) => ctx.mutate().with(RISK, pr.files.some((f) => f.includes('migrations/')) ? 'high' : 'low').build(),
    }),
  )
  .build();

const review = Workflow.define<PullRequest>('pr-review')
  .branch((_ctx, pr) => pr.linesChanged < 5 && pr.files.every((f) => f.endsWith('.md')))
  .then(step('skip', (_ctx, pr: PullRequest) => `${pr.title}: docs only, approved without review`))
  .otherwise(
    step('full-review', async (ctx, pr: PullRequest) => {
      const done = await analysis.run(pr, { context: ctx.toJSON() });
      return `${pr.title}: reviewed (${done.path.join(', ')})`;
    }),
  );

// The same analysis as a step of its own workflow: its context (the risk) is merged back for the next step.
const gated = Workflow.define<PullRequest>('pr-gated')
  .step(analysis)
  .then(step('decide', (ctx, pr: PullRequest) => `${pr.title}: ${ctx.require(RISK) === 'high' ? 'needs two approvals' : 'one approval is enough'}`));

console.log((await review.run({ title: 'Fix typo', files: ['README.md'], linesChanged: 1 })).output);
console.log((await review.run({ title: 'Add column', files: ['db/migrations/7.sql'], linesChanged: 40 })).output);
const run = await gated.run({ title: 'Add column', files: ['db/migrations/7.sql'], linesChanged: 40 });
console.log(run.output, `[${run.path.join(' → ')}]`);
