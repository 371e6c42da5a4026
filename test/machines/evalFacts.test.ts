import { describe, expect, it } from 'vitest';
import type { LabelledMessage } from '../../machines/customerService/dataset/LabelledMessage.js';
import { checkFacts, estimatesRefund } from '../../machines/customerService/eval/checkFacts.js';
import { evaluateMessages } from '../../machines/customerService/eval/evaluateMessages.js';

const message = (id: string, text: string, facts: string[]): LabelledMessage => ({ id, text, route: 'tool', entities: { orderId: `SO${/\d{8}/.exec(text)![0]}` }, facts, now: '2026-10-12T09:00:00Z' });

describe('the eval checks that an answer is of the kind asked for', () => {
  it('does not count a status answer that quotes the price as a refund answer (real graph, offline)', async () => {
    // The refund of an unopened SO20261001 equals its price, so a status answer carries the figure too.
    const report = await evaluateMessages(
      [
        message('x001', 'Where is my order SO20261001 right now?', ['599.00']),
        message('x002', 'How much money do I get back if I return SO20261001?', ['599.00']),
        message('x003', 'refund estimate for SO20261003', ['in transit']),
        message('x004', 'where is SO20261003', ['in transit']),
      ],
      { concurrency: 1, split: 'test' },
    );
    const [status, refund, refundForStatus, statusForStatus] = report.cases;
    expect(status!.answer).toContain('599.00 CNY');
    expect(status!.answer).not.toContain('Estimated refund');
    expect(status!.facts).toEqual([{ fact: '599.00', found: false, note: 'the amount appears, but not as money back' }]);
    expect(refund!.answer).toContain('Estimated refund: 599.00 CNY');
    expect(refund!.facts).toEqual([{ fact: '599.00', found: true }]);
    // A status question answered with a refund estimate is the wrong kind of answer, though it says "in transit".
    expect(refundForStatus!.answer).toContain('in transit');
    expect(refundForStatus!.facts).toEqual([{ fact: 'in transit', found: false, note: 'the answer estimates a refund that was not asked for' }]);
    expect(statusForStatus!.facts).toEqual([{ fact: 'in transit', found: true }]);
    expect(report.facts['tool']).toEqual({ correct: 2, total: 4, percent: 50 });
  }, 120_000);

  it('reads money back in other wordings, as a model would write it', () => {
    expect(checkFacts(['764.15'], 'You can get about 764.15 CNY back for your Aero Earbuds Pro. This is an estimate.')[0]!.found).toBe(true);
    expect(checkFacts(['599.00'], 'Good news: it is unopened, so you would be reimbursed 599.00 CNY in full.')[0]!.found).toBe(true);
    expect(checkFacts(['0.00 CNY'], 'Your refund would be 0.00 CNY, since the 7-day window has passed.')[0]!.found).toBe(true);
    // The figure in one sentence and the refund in another is not a refund answer.
    expect(checkFacts(['599.00'], 'Your headphones cost 599.00 CNY. Refunds take 5 to 7 business days.')[0]).toMatchObject({ found: false });
  });

  it('finds a number only as a whole number, and keeps the other facts as plain text', () => {
    expect(checkFacts(['29.00'], 'Estimated refund: 129.00 CNY')[0]!.found).toBe(false);
    expect(checkFacts(['1,286,000'], 'Revenue in 2026-09: 11,286,000 CNY')[0]!.found).toBe(false);
    expect(checkFacts(['1,286,000'], 'Revenue in 2026-09: 1,286,000 CNY.')[0]!.found).toBe(true);
    expect(checkFacts(['KB001'], 'See [KB0012]')[0]!.found).toBe(false);
    expect(checkFacts(['KB001', '12.5%'], 'Returns [KB001]; margin 12.5%.').every((f) => f.found)).toBe(true);
    expect(checkFacts(['in transit'], null)).toEqual([{ fact: 'in transit', found: false }]);
    // A status and a refund asked in one message (two orders): the refund estimate is expected, not extra.
    const both = 'SO20261003 is still in transit.\n\nSO20261002: Estimated refund: 764.15 CNY (opened).';
    expect(checkFacts(['in transit', '764.15'], both).every((f) => f.found)).toBe(true);
    expect(estimatesRefund('Order SO20261001 (Aero Headphones, 599.00 CNY) was delivered 3 days ago.')).toBe(false);
  });
});
