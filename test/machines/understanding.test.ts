import { describe, expect, it } from 'vitest';
import { OfflineModel, resumeRun, type ModelClient, type ModelRequest } from '../../src/index.js';
import { customerService } from '../../machines/customerService.js';
import { loadDataset } from '../../machines/customerService/dataset/loadDataset.js';
import { settleClassification } from '../../machines/customerService/settleClassification.js';
import { MessageUnderstanding } from '../../machines/customerService/understanding/MessageUnderstanding.js';
import { defaultUnderstanding } from '../../machines/customerService/understanding/defaultUnderstanding.js';
import { extractEntities } from '../../machines/customerService/understanding/extractEntities.js';
import { readOrderIds } from '../../machines/customerService/understanding/readOrderId.js';
import { splitClauses } from '../../machines/customerService/understanding/splitClauses.js';
import { tokensOf } from '../../machines/customerService/understanding/textFeatures.js';

const at = (iso: string) => ({ now: Date.parse(iso) });
const OCT = at('2026-10-12T09:00:00Z');
const entities = (text: string, clock = OCT) => extractEntities(text, clock).entities;

describe('entity extraction', () => {
  it('normalizes order numbers however they are written, and reads a bare number only when one was asked for', () => {
    for (const text of ['SO20261004', 'so 20261004', 'S0-20261004', 'order #20261004', 'Order No: 20261004', 'ref #20261004'])
      expect(entities(`about ${text} please`).orderId, text).toBe('SO20261004');
    expect(entities('I paid 20261004 cents').orderId).toBeUndefined();
    expect(entities('refund for SO123').orderId).toBeUndefined();
    expect(readOrderIds('it is 20261004', { expectingOrderId: true })[0]?.value).toBe('SO20261004');
    // A bare number beside a word about an order is one; a bare number in other talk is not.
    for (const text of ['did 20261004 arrive', 'track 20261004 pls', 'refund for 20261004?', 'where is my parcel 20261004', 'I want to return 20261004'])
      expect(entities(text).orderId, text).toBe('SO20261004');
    for (const text of ['call me on 20261004', 'revenue 20261004', 'sales report for 20261004']) expect(entities(text).orderId, text).toBeUndefined();
  });

  it('reads months against the clock, across a year boundary, and leaves words that only look like months', () => {
    const jan = at('2027-01-05T00:00:00Z');
    expect(entities('revenue last month', jan).period).toBe('2026-12');
    expect(entities('report for two months ago', jan).period).toBe('2026-11');
    expect(entities('sales in December').period).toBe('2025-12');
    expect(entities('sales in August').period).toBe('2026-08');
    expect(entities('numbers for 7/2026').period).toBe('2026-07');
    for (const text of ['the monthly report for 07-2026', 'revenue 7.2026', 'sales 07 - 2026']) expect(entities(text).period, text).toBe('2026-07');
    for (const text of ['delivered 04-07-2026', 'on 2026-04-07', 'on 04.07.2026']) expect(entities(text).period, text).toBeUndefined();
    expect(entities("figures for Sept '26").period).toBe('2026-09');
    expect(entities('Octobr 2026 report').period).toBe('2026-10');
    for (const text of ['may I ask something', 'a 12 month warranty', 'delivered on 2026-10-02', 'last week', 'order SO20261002']) expect(entities(text).period, text).toBeUndefined();
  });

  it('reads fault codes named or described, and not an ambiguous colour', () => {
    expect(entities('error 3 on my buds').faultCode).toBe('E03');
    expect(entities('case shows e-2').faultCode).toBe('E02');
    expect(entities('the light flashes yellow').faultCode).toBe('E01');
    expect(entities('a steady red light').faultCode).toBe('E04');
    expect(entities('there is a red light on it').faultCode).toBeUndefined();
    expect(entities('my red headphones').faultCode).toBeUndefined();
    expect(entities('a 12 month warranty').faultCode).toBeUndefined();
  });
});

describe('clauses and tokens', () => {
  const clauses = (text: string) => splitClauses(text, extractEntities(text, OCT).spans);

  it('never makes a clause of filler words alone: "Now,", "OK so," and "One more thing -" join the request after them', () => {
    expect(clauses('Thank you! Now, where is SO20261003?').map((c) => c.text)).toEqual(['Thank you', 'Now, where is SO20261003']);
    expect(clauses('ok so. anyway, what is the warranty').map((c) => c.text)).toEqual(['ok so. anyway, what is the warranty']);
    // At the end, filler joins the clause before it; a message of filler only stays one clause.
    expect(clauses('where is SO20261003, ok?').map((c) => c.text)).toEqual(['where is SO20261003, ok']);
    expect(clauses('ok.').map((c) => c.text)).toEqual(['ok']);
    // Entities inside a merged clause keep offsets relative to it.
    const [, order] = clauses('Cheers. Right, refund SO20261002');
    expect(order!.text.slice(order!.spans[0]!.start, order!.spans[0]!.end)).toBe('SO20261002');
    // A piece with one word of its own is a clause.
    expect(clauses('What is the warranty? And the revenue for August 2026?').map((c) => c.text)).toEqual(['What is the warranty', 'the revenue for August 2026']);
  });

  it("reads a possessive after an entity as part of it (\"last month's revenue\")", () => {
    const text = "last month's revenue and SO20261002’s refund";
    expect(tokensOf(text, extractEntities(text, OCT).spans)).toEqual(['xperiod', 'revenue', 'and', 'xorderid', 'refund']);
  });
});

describe('small talk around a request, and context beside one', () => {
  const nlu = defaultUnderstanding();
  it('answers the request, and keeps a clause of context from becoming a task of its own', () => {
    expect(nlu.understand('Much obliged for the help. Okay, so what is the refund for SO20261001?', OCT)).toMatchObject({ route: 'tool', tasks: [] });
    expect(nlu.understand('Thanks so much, you rock! Anyway, does the warranty cover a dead driver?', OCT)).toMatchObject({ route: 'rag', tasks: [] });
    expect(nlu.understand('Thanks so much, you rock!', OCT).route).toBe('general');
    expect(nlu.understand('SO20261002: used them twice, the box is open. What would a return pay me?', OCT)).toMatchObject({ route: 'tool', tasks: [] });
    // Two real requests still make two tasks.
    expect(nlu.understand("Thanks! What's the warranty, and can you tell me last month's revenue?", OCT).tasks.map((t) => t.kind)).toEqual(['rag', 'report']);
  });
});

describe('the learned understanding', () => {
  it('never plans multi with fewer than two tasks, nor tasks for a single route, on any labelled message', () => {
    const nlu = defaultUnderstanding();
    for (const m of [...loadDataset('train'), ...loadDataset('heldout')]) {
      const u = nlu.understand(m.text, { now: Date.parse(m.now) });
      if (u.route === 'multi') expect(u.tasks.length, m.text).toBeGreaterThanOrEqual(2);
      else expect(u.tasks, m.text).toEqual([]);
      expect(u.confidence).toBeGreaterThanOrEqual(0);
      expect(u.confidence).toBeLessThanOrEqual(1);
    }
  });

  it('is learned deterministically and carries each task its entity in the form the specialist reads', () => {
    const a = MessageUnderstanding.train(loadDataset('train')).understand('return policy? and refund on order no. 20261005, plus revenue last month', OCT);
    const b = MessageUnderstanding.train(loadDataset('train')).understand('return policy? and refund on order no. 20261005, plus revenue last month', OCT);
    expect(a).toEqual(b);
    expect(a.route).toBe('multi');
    expect(a.tasks.find((t) => t.kind === 'tool')?.input).toContain('SO20261005');
    expect(a.tasks.find((t) => t.kind === 'report')?.input).toContain('2026-09');
  });
});

describe('settling a classification', () => {
  it('gives a multi answer without tasks the offline split, or its strongest single intent', () => {
    const split = settleClassification({ route: 'multi', confidence: 0.9 }, 'What is the warranty, and where is SO20261003?', Date.now());
    expect(split.tasks?.map((t) => t.kind).sort()).toEqual(['rag', 'tool']);
    const single = settleClassification({ route: 'multi', confidence: 0.9, tasks: [] }, 'How much would I get back if I return order SO20261002?', Date.now());
    expect(single).toMatchObject({ route: 'tool', orderId: 'SO20261002' });
    expect(single.tasks).toBeUndefined();
  });

  it('turns an order answer for a message naming two orders into one order task per order', () => {
    const settled = settleClassification({ route: 'tool', confidence: 0.9, orderId: 'SO20261001' }, 'refund SO20261001 and order no. 20261002 please', Date.now());
    expect(settled.route).toBe('multi');
    expect(settled.tasks?.map((t) => t.kind)).toEqual(['tool', 'tool']);
    expect(settled.tasks?.[0]?.input).toContain('SO20261001');
    expect(settled.tasks?.[0]?.input).not.toContain('20261002');
    expect(settled.tasks?.[1]?.input).toContain('SO20261002');
    expect(settled.tasks?.[1]?.input).not.toContain('SO20261001');
    expect(settleClassification({ route: 'tool', confidence: 0.9 }, 'refund SO20261001 please', Date.now())).toMatchObject({ route: 'tool', orderId: 'SO20261001' });
  });
});

/** The offline model, except that the classifier answers `multi` with no tasks, as a weak LLM might. */
const multiWithoutTasks: ModelClient = (() => {
  const offline = new OfflineModel();
  const fake = (request: ModelRequest) => (request.agent === 'classifier' ? { ...request, offline: () => '{"route":"multi","confidence":0.9}' } : request);
  return { name: 'multi-without-tasks', complete: (r) => offline.complete(fake(r)), stream: (r) => offline.stream(fake(r)) };
})();

describe('the customer-service graph', () => {
  it('answers a refund question a classifier called multi without tasks with its single intent', async () => {
    const run = await customerService({ model: multiWithoutTasks }).run('How much would I get back if I return order SO20261002?');
    expect(run.status).toBe('completed');
    expect(run.path).toContain('tool_plan');
    expect(run.path).not.toContain('multi_plan');
    expect(run.outputText).toContain('764.15 CNY');
  });

  it('hands the run to a person after two answers without an order number', async () => {
    const graph = customerService({ model: new OfflineModel() });
    const asked = await graph.run('how much refund will I get for my headphones?');
    expect(asked.waiting?.nodeId).toBe('ask_order');
    const again = await resumeRun(graph, asked.runId, { reply: 'no idea' });
    expect(again.waiting?.nodeId).toBe('ask_order');
    const handed = await resumeRun(graph, asked.runId, { reply: 'still no idea' });
    expect(handed.waiting).toMatchObject({ nodeId: 'human_handoff', reason: 'the customer gave no order number after 2 asks' });
  });
});

describe('a trained understanding as JSON', () => {
  it('answers every held-out message (route, entities, tasks, order intent) exactly as the understanding it was written from', () => {
    const trained = MessageUnderstanding.train(loadDataset('train'));
    const restored = MessageUnderstanding.fromJSON(JSON.parse(JSON.stringify(trained.toJSON())));
    for (const m of loadDataset('heldout')) {
      const clock = { now: Date.parse(m.now) };
      expect(restored.understand(m.text, clock), m.id).toEqual(trained.understand(m.text, clock));
      expect(restored.orderIntent(m.text, clock), m.id).toBe(trained.orderIntent(m.text, clock));
    }
    // Misspellings go through the restored vocabulary too.
    expect(restored.understand('what is your retrun polcy?', OCT)).toEqual(trained.understand('what is your retrun polcy?', OCT));
  });

  it('keeps every weight bit for bit, writes each feature name once, and refuses weights that do not match the rows', () => {
    const data = defaultUnderstanding().toJSON();
    // Written again from what it was read from, it is the same text: no weight lost a bit.
    expect(JSON.stringify(MessageUnderstanding.fromJSON(JSON.parse(JSON.stringify(data))).toJSON())).toBe(JSON.stringify(data));
    expect(new Set(data.features).size).toBe(data.features.length);
    // The three classifiers share the names: the route model alone has most of them.
    const rowsOf = (rows: string) => Buffer.from(rows, 'base64').byteLength / 4;
    expect(rowsOf(data.model.rows) + rowsOf(data.intent.rows) + rowsOf(data.person.rows)).toBeGreaterThan(data.features.length * 1.5);
    // About 8 bytes a weight in base64 (11), not about 20 as decimal text.
    const weights = JSON.stringify(data.model.weights).length / (rowsOf(data.model.rows) * data.model.labels.length);
    expect(weights).toBeLessThan(11);
    const cut = { ...data, person: { ...data.person, weights: Buffer.from(data.person.weights, 'base64').subarray(16).toString('base64') } };
    expect(() => MessageUnderstanding.fromJSON(cut)).toThrow(RangeError);
    const outside = { ...data, features: data.features.slice(0, 10) };
    expect(() => MessageUnderstanding.fromJSON(outside)).toThrow(/feature names/);
  });
});
