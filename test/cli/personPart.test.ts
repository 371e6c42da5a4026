import { describe, expect, it } from 'vitest';
import { offlineDesk } from '../support/offlineDesk.js';

const { run } = offlineDesk('sb-person-');

describe('disputes and requests for a person (CLI, offline)', () => {
  it('sends a charge dispute to a person, also when it names an order and asks for money back', () => {
    for (const message of [
      'I was charged twice for order SO20261002, give me one payment back',
      'my credit card shows SO20261001 billed two times!! refund the extra one',
      'this is fraud, i never bought order 20261004 and want my money back',
      'Filing a chargeback on #20261005 with my bank today.',
    ]) {
      const r = run('run', message);
      expect(r, message).toMatchObject({ status: 'waiting', path: ['ingest', 'classify', 'human_handoff'], waiting: { nodeId: 'human_handoff' } });
      expect(r.outputText ?? '', message).not.toContain('Estimated refund');
    }
    // An order question with no dispute in it is still answered.
    expect(run('run', 'How much would I get back if I return order SO20261002?').outputText).toContain('764.15 CNY');
  }, 240_000);

  it('answers the other questions of a message with a dispute in it, and a person gets the dispute', () => {
    const asked = run('run', 'Where is my order SO20261003? Also I got charged twice on SO20261001, I want that looked at by someone.');
    expect(asked).toMatchObject({ status: 'waiting', waiting: { nodeId: 'human_handoff' } });
    expect(asked.path).toEqual(['ingest', 'classify', 'multi_plan', 'specialist', 'multi_review', 'draft', 'review', 'human_handoff']);
    expect(asked.outputText).toMatch(/Your order: [^\n]*SO20261003[^\n]*in transit/);
    expect(asked.outputText).toMatch(/For a person: [^\n]*charged twice on SO20261001/);
    expect(asked.outputText).not.toMatch(/SO20261001[^\n]*Estimated refund/);
    expect(asked.waiting!.reason).toContain('charged twice on SO20261001');
    const done = run('resume', asked.runId, '--reply', 'We refunded the second payment for SO20261001.');
    expect(done.status).toBe('completed');
    expect(done.outputText).toMatch(/SO20261003[^\n]*in transit[\s\S]*From our team: We refunded the second payment for SO20261001\.$/);
  }, 240_000);

  it('still answers the other tasks when one specialist asks for a person, and the person gets the rest', () => {
    // The order specialist spends its tool budget on a timed-out call and asks for a person.
    const asked = run('run', 'What is the warranty on headphones, and how much is the refund for SO20261001?', '--fault', 'tool_timeout', '--tool-budget', '2');
    expect(asked).toMatchObject({ status: 'waiting', waiting: { nodeId: 'human_handoff' } });
    expect(asked.path.slice(-4)).toEqual(['multi_review', 'draft', 'review', 'human_handoff']);
    expect(asked.outputText).toContain('[KB003]');
    expect(asked.outputText).toMatch(/Your order: a person from our team takes this over/);
    expect(asked.waiting!.reason).toMatch(/tool task "How much is the refund for SO20261001" \(tool loop reached budget\)/);
    const done = run('resume', asked.runId, '--reply', 'Your refund for SO20261001 is 599.00 CNY.');
    expect(done.status).toBe('completed');
    expect(done.outputText).toContain('[KB003]');
    expect(done.outputText).toMatch(/From our team: Your refund for SO20261001 is 599\.00 CNY\.$/);
  }, 240_000);
});
