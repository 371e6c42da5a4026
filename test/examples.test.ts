import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

const run = (file: string): string =>
  execFileSync(process.execPath, ['--import', 'tsx', `examples/${file}`], { encoding: 'utf8', env: { ...process.env, OPENAI_API_KEY: '' } });

describe('examples', () => {
  it('01-sequential-chain prints its path', () => {
    expect(run('01-sequential-chain.ts')).toContain('path:   draft → polish → shout');
  });

  it('02-route-then-converge routes each question and converges', () => {
    const out = run('02-route-then-converge.ts');
    expect(out).toContain('path:   route → weather → final');
    expect(out).toContain('path:   route → generic → final');
    expect(out).toContain('route:  weather');
  });

  it('05-typed-state runs the typed graph and refuses a Date at the put', () => {
    const out = run('05-typed-state.ts');
    expect(out).toContain('path:   research → write → review → write → review');
    expect(out).toContain('draft:  On tides: a source, a second source, a second source');
    expect(out).toContain('error:  state_not_json: state key "dueAt" (written by node "stamp") holds a Date');
  });

  it('03-loop-with-fuse converges once and trips the fuse once', () => {
    const out = run('03-loop-with-fuse.ts');
    expect(out).toContain('status: completed');
    expect(out).toContain('status: max-steps');
    expect(out).toContain('path:   draft → review → draft → review → draft → review → draft');
  });

  it('05-structured-agent triages each ticket into checked JSON and routes on it', () => {
    const out = run('05-structured-agent.ts');
    expect(out).toContain('triage: {"category":"billing","urgency":4,"summary":"the invoice charged me twice!"}');
    expect(out).toContain('path:   intake → triage → escalate');
    expect(out).toContain('triage: {"category":"account","urgency":2,"summary":"how do I change my avatar?"}');
    expect(out).toContain('answer: Queued for the account team.');
  });
});
