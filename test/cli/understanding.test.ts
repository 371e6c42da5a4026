import { describe, expect, it } from 'vitest';
import { offlineDesk } from '../support/offlineDesk.js';

const { cli, run } = offlineDesk('sb-nlu-');

describe('the offline desk understands ordinary messages (CLI)', () => {
  it('answers "hi there!" with what the desk can do, and the run completes', () => {
    const hi = run('run', 'hi there!');
    expect(hi).toMatchObject({ status: 'completed', path: ['ingest', 'classify', 'draft', 'review', 'finish'] });
    for (const topic of ['return', 'fault codes', 'refunds', 'sales report']) expect(hi.outputText).toContain(topic);
    const thanks = run('run', 'Thx a lot, that sorted it!');
    expect(thanks.status).toBe('completed');
    expect(thanks.outputText).toMatch(/^You're welcome!/);
  }, 180_000);

  it('answers "How much would I get back if I return order SO20261002?" with 764.15', () => {
    const result = cli('run', 'How much would I get back if I return order SO20261002?');
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/✓ classify\s+\d+ ms {2}route tool/);
    expect(result.stdout).toContain('764.15 CNY');
    // Other spellings of the same order number reach the same answer.
    expect(run('run', 'refund estimate for order no. 20261002 please').outputText).toContain('764.15 CNY');
  }, 180_000);

  it('answers small talk ("yo", "hey there", "thanks a lot", stretched "heyyy") with the friendly reply instead of a person', () => {
    for (const message of ['yo', 'hey there', 'heyyy', 'thanks a lot']) {
      const reply = run('run', message);
      expect(reply, message).toMatchObject({ status: 'completed', path: ['ingest', 'classify', 'draft', 'review', 'finish'] });
      expect(reply.outputText, message).toContain('sales report');
    }
    expect(run('run', 'thanks a lot').outputText).toMatch(/^You're welcome!/);
  }, 240_000);

  it('estimates the refund however the customer says they want to send an order back, and not for a status question', () => {
    const asked = [
      ['Thinking of shipping order SO20261002 back to you - what would I recover?', '764.15 CNY'],
      ["I'd like to give back #20261005, what's in it for me", '129.00 CNY'],
      ['can i bring SO20261004 back to the store for my money', '0.00 CNY'],
    ] as const;
    for (const [message, amount] of asked) expect(run('run', message).outputText, message).toContain(`Estimated refund: ${amount}`);
    const status = run('run', 'Is SO20261005 on its way to me?');
    expect(status.outputText).toContain('delivered 1 day ago');
    expect(status.outputText).not.toContain('Estimated refund');
  }, 240_000);

  it('answers for every order a message names, each on its own', () => {
    const refunds = run('run', 'refund SO20261001 and SO20261002');
    expect(refunds.path).toContain('multi_plan');
    expect(refunds.outputText).toMatch(/SO20261001[^\n]*Estimated refund: 599\.00 CNY/);
    expect(refunds.outputText).toMatch(/SO20261002[^\n]*Estimated refund: 764\.15 CNY/);
    const status = run('run', "What's the status of order no. 20261003 and #20261005?");
    expect(status.outputText).toMatch(/SO20261003[^\n]*in transit/);
    expect(status.outputText).toMatch(/SO20261005[^\n]*delivered 1 day ago/);
  }, 240_000);

  it('asks for the order number, waits, and continues with the answer', () => {
    const asked = run('run', "I'd like my money back for the earbuds I bought");
    expect(asked).toMatchObject({ status: 'waiting', path: ['ingest', 'classify', 'tool_plan', 'ask_order'], waiting: { nodeId: 'ask_order' } });
    expect(asked.waiting!.reason).toContain('order number');
    const again = run('resume', asked.runId, '--reply', 'I do not have it here');
    expect(again).toMatchObject({ status: 'waiting', waiting: { nodeId: 'ask_order' } });
    expect(again.waiting!.reason).toContain('did not contain an order number');
    const done = run('resume', asked.runId, '--reply', 'sure, it is 20261002');
    expect(done.status).toBe('completed');
    expect(done.path.slice(-4)).toEqual(['tool_plan', 'draft', 'review', 'finish']);
    expect(done.outputText).toContain('764.15 CNY');
  }, 240_000);

  it('says what the run waits for: the order number from the customer, not a person', () => {
    const result = cli('run', 'Can I get my money back for the speaker?');
    expect(result.status, result.stderr).toBe(3);
    expect(result.stdout).toMatch(/^waiting for a reply at ask_order: Please send me your order number/m);
    expect(result.stdout).not.toContain('waiting for a person');
  }, 180_000);

  it('sends only disputes, requests for a person and unreadable messages to a person', () => {
    for (const message of ['I object to this refund decision, it is unfair.', 'Can I talk to a real person please?', 'qwxz vbnm plkj']) {
      const waiting = run('run', message);
      expect(waiting, message).toMatchObject({ status: 'waiting', path: ['ingest', 'classify', 'human_handoff'] });
    }
  }, 240_000);

  it('splits a message with several intents into specialist tasks', () => {
    const multi = run('run', 'What is your warranty on speakers, and where is order #20261003?');
    expect(multi.path).toContain('multi_plan');
    expect(multi.outputText).toContain('[KB003]');
    expect(multi.outputText).toContain('in transit');
  }, 180_000);
  it('answers one request behind small talk ("Thanks …! Now, …") as that request: no split, no person', () => {
    const refund = run('run', "Thanks heaps for the quick fix last time. Now then, what's the refund on SO20261002?");
    expect(refund.status).toBe('completed');
    expect(refund.path).toContain('tool_plan');
    expect(refund.path).not.toContain('multi_plan');
    expect(refund.outputText).toContain('Estimated refund: 764.15 CNY');
    const status = run('run', 'Good afternoon, and thank you. Just one question: has SO20261004 been delivered?');
    expect(status.outputText).toContain('delivered 21 days ago');
    expect(status.outputText).not.toContain('Estimated refund');
    const policy = run('run', 'Cheers for the earlier chat. Next: does the warranty cover a broken battery?');
    expect(policy).toMatchObject({ status: 'completed', path: expect.arrayContaining(['retrieve']) });
    expect(policy.outputText).toContain('[KB003]');
    // A context clause beside an order question is not a policy question of its own.
    const context = run('run', 'The charging case SO20261005 came yesterday, still in plastic. Full money back if I return it?');
    expect(context.path).not.toContain('multi_plan');
    expect(context.outputText).toContain('Estimated refund: 129.00 CNY');
  }, 240_000);

  it('reads a sales question asked as "can you tell me / let me know / share" inside a composite message as a report task', () => {
    // "last month" is read against the real clock here: whatever month that is, the answer has a sales-report part and no order part.
    const fault = run('run', "What does error E02 mean, and can you let me know last month's turnover?");
    expect(fault.status).toBe('completed');
    expect(fault.path).toContain('multi_plan');
    expect(fault.outputText).toContain('[KB002]');
    expect(fault.outputText).toContain('Sales report:');
    expect(fault.outputText).not.toMatch(/Your order:|send me your order number/);
    const exchange = run('run', "What's the exchange policy, and could you share the revenue for September 2026?");
    expect(exchange.outputText).toContain('[KB008]');
    expect(exchange.outputText).toContain('1,286,000');
    expect(exchange.outputText).not.toMatch(/Your order:|send me your order number/);
  }, 240_000);

  it('tracks an order asked for curtly ("pls", "thx", a bare number) instead of estimating a refund', () => {
    for (const [message, status] of [
      ['trace so20261005 thx', 'delivered 1 day ago'],
      ['SO20261003 pls', 'in transit'],
      ['shipping status SO20261001 pls', 'delivered 3 days ago'],
    ] as const) {
      const answer = run('run', message).outputText;
      expect(answer, message).toContain(status);
      expect(answer, message).not.toContain('Estimated refund');
    }
    expect(run('run', 'can i get a refund on SO20261003 pls').outputText).toContain('Estimated refund: 349.00 CNY');
  }, 240_000);
});
