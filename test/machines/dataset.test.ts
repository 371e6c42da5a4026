import { describe, expect, it } from 'vitest';
import { describeSalesReport, formatCny, orderFixtures, refundEstimate, salesReport, loadPolicyDocuments } from '../../specialists/index.js';
import { loadDataset, parseDataset } from '../../machines/customerService/dataset/loadDataset.js';

const train = loadDataset('train');
const heldout = loadDataset('heldout');
const all = [...train, ...heldout];
// The second fresh set (written after the rules of issue 12's second pass, measured once).
const fresh2 = loadDataset({ file: new URL('../../machines/customerService/dataset/fresh2.jsonl', import.meta.url).pathname });
const norm = (text: string) => text.toLowerCase().replace(/[^a-z0-9]+/g, ' ').trim();

describe('the labelled message set', () => {
  it('has at least 400 messages with unique ids, split into train and held-out with no message in both', () => {
    expect(all.length).toBeGreaterThanOrEqual(400);
    expect(heldout.length).toBeGreaterThanOrEqual(150);
    expect(new Set(all.map((m) => m.id)).size).toBe(all.length);
    expect(train.every((m) => m.id.startsWith('t')) && heldout.every((m) => m.id.startsWith('h'))).toBe(true);
    const trainTexts = new Set(train.map((m) => norm(m.text)));
    expect(heldout.filter((m) => trainTexts.has(norm(m.text))).map((m) => m.text)).toEqual([]);
  });

  it('covers every route in both parts, and several intents in one message', () => {
    for (const part of [train, heldout]) {
      for (const route of ['rag', 'tool', 'report', 'multi', 'human', 'general']) expect(part.filter((m) => m.route === route).length).toBeGreaterThanOrEqual(15);
      expect(part.filter((m) => m.tasks?.length === 3).length).toBeGreaterThanOrEqual(3);
    }
  });

  it('spells order ids, periods and fault codes in many ways', () => {
    const orderSpellings = new Set(all.filter((m) => m.entities.orderId && !m.text.includes(m.entities.orderId)).map((m) => m.text));
    expect(orderSpellings.size).toBeGreaterThanOrEqual(30);
    const relative = all.filter((m) => m.entities.period && /last month|previous month|months? (ago|back)|month before last|this month|past month/i.test(m.text));
    expect(relative.length).toBeGreaterThanOrEqual(15);
    expect(all.filter((m) => m.now !== '2026-10-12T09:00:00Z').length).toBeGreaterThanOrEqual(5);
    const described = all.filter((m) => m.entities.faultCode && !/\be\s?-?0?\d\b/i.test(m.text));
    expect(described.length).toBeGreaterThanOrEqual(20);
    expect(all.filter((m) => m.text === m.text.toUpperCase() && /[A-Z]{3}/.test(m.text)).length).toBeGreaterThanOrEqual(6);
    expect(all.filter((m) => m.reply !== undefined).length).toBeGreaterThanOrEqual(20);
  });

  it('states facts that agree with the orders, the sales data and the knowledge base', () => {
    const orders = orderFixtures(Date.parse('2026-10-12T09:00:00Z'));
    const kb = new Set(loadPolicyDocuments().map((d) => d.id));
    for (const m of [...all, ...fresh2]) {
      const replied = /\d{8}/.exec(m.reply ?? '')?.[0];
      const orderId = m.entities.orderId ?? (replied ? `SO${replied}` : undefined);
      const order = orders.find((o) => o.orderId === orderId);
      for (const fact of m.facts) {
        if (/^KB\d{3}$/.test(fact)) expect(kb.has(fact), `${m.id}: ${fact}`).toBe(true);
        if (/^\d+\.\d{2}( CNY)?$/.test(fact) && m.route === 'tool') {
          expect(order, m.id).toBeDefined();
          const amounts = [formatCny(refundEstimate(order!).refund), formatCny(order!.price)];
          expect(amounts.some((a) => a.startsWith(fact.replace(' CNY', ''))), `${m.id}: ${fact} vs ${amounts.join(', ')}`).toBe(true);
        }
        if (/^\d{1,3}(,\d{3})+$|%$/.test(fact) && m.route === 'report') {
          expect(describeSalesReport(salesReport(m.entities.period!)), m.id).toContain(fact);
        }
      }
    }
  });

  it('holds a second fresh set of at least 100 messages, of every route, none of them in the training part', () => {
    expect(fresh2.length).toBeGreaterThanOrEqual(100);
    expect(new Set(fresh2.map((m) => m.id)).size).toBe(fresh2.length);
    for (const route of ['rag', 'tool', 'report', 'multi', 'human', 'general']) expect(fresh2.filter((m) => m.route === route).length, route).toBeGreaterThanOrEqual(10);
    const trainTexts = new Set(train.map((m) => norm(m.text)));
    expect(fresh2.filter((m) => trainTexts.has(norm(m.text))).map((m) => m.text)).toEqual([]);
  });

  it('refuses a malformed line with its line number', () => {
    expect(() => parseDataset('{"id":"x001","text":"hi","route":"general"}\n{"id":"x002","text":"hi","route":"chat"}', 'sample')).toThrow(/sample line 2/);
    expect(() => parseDataset('{"id":"x001","text":"hi","route":"multi"}', 'sample')).toThrow(/tasks are given exactly for multi/);
    expect(() => parseDataset('not json', 'sample')).toThrow(/line 1 is not JSON/);
  });
});
