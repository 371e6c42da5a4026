import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const exec = promisify(execFile);
const run = async (file: string): Promise<string> =>
  (await exec(process.execPath, ['--import', 'tsx', `examples/${file}`], { encoding: 'utf8', env: { ...process.env, OPENAI_API_KEY: '' } })).stdout;

describe('workflow examples', () => {
  it('06-workflow-classifier publishes confidence through the context', async () => {
    const out = await run('06-workflow-classifier.ts');
    expect(out).toContain('I was charged twice → Routed to the billing team (confidence 0.9). [classify → answer]');
    expect(out).toContain('hello there → Not sure (0.4)');
  }, 60_000);

  it('07-workflow-pr-review skips docs-only changes and reads the sub-workflow context', async () => {
    const out = await run('07-workflow-pr-review.ts');
    expect(out).toContain('Fix typo: docs only, approved without review');
    expect(out).toContain('Add column: needs two approvals [analysis → decide]');
  }, 60_000);

  it('08-workflow-judge-loop revises once with the reflection and passes offline', async () => {
    const out = await run('08-workflow-judge-loop.ts');
    expect(out).toContain('path:   draft → revise → send');
    expect(out).toContain('"decision":"PASS","score":0.9');
  }, 60_000);

  it('09-workflow-typed-pipeline sums and reports the type error', async () => {
    const out = await run('09-workflow-typed-pipeline.ts');
    expect(out).toContain('total: 6');
    expect(out).toContain("step 'parse' outputs number[] but step 'format' expects number");
  }, 60_000);
});
