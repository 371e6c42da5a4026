import { describe, expect, it } from 'vitest';
import { citedIds, citesOnlyRetrieved, loadPolicyDocuments, retrieveNode, rewriteQuery, searchPolicies } from '../../../specialists/index.js';

describe('the policy knowledge base', () => {
  it('ships at least eight short documents with ids KB001 onwards', () => {
    const docs = loadPolicyDocuments();
    expect(docs.length).toBeGreaterThanOrEqual(8);
    expect(docs.map((d) => d.id).slice(0, 8)).toEqual(['KB001', 'KB002', 'KB003', 'KB004', 'KB005', 'KB006', 'KB007', 'KB008']);
    for (const doc of docs) expect(doc.text.length).toBeLessThan(600);
  });

  it('states the Aero return policy in KB001 exactly as the rule goes', () => {
    const kb001 = loadPolicyDocuments().find((d) => d.id === 'KB001')!;
    expect(kb001.title).toMatch(/Aero headphones and earbuds return policy/);
    expect(kb001.text).toContain('within 7 days of delivery');
    expect(kb001.text).toContain('unused and unopened, you get a full refund');
    expect(kb001.text).toContain('a 15% restocking fee');
    expect(kb001.text).toContain('After 7 days');
    expect(kb001.text).toContain('warranty only');
  });

  it('explains LED fault code E02 in one document', () => {
    const e02 = loadPolicyDocuments().filter((d) => d.text.includes('E02'));
    expect(e02).toHaveLength(1);
    expect(e02[0]!.text).toContain('red blinking LED');
    expect(e02[0]!.text).toContain('charging-contact fault');
    expect(e02[0]!.text).toContain('clean the charging contacts');
    expect(e02[0]!.text).toContain('charge for 30 minutes with the original cable');
  });
});

describe('searchPolicies', () => {
  it('ranks the return policy first for a return question', () => {
    const hits = searchPolicies('What is the return policy for Aero headphones? Can I return them unused three days after delivery?');
    expect(hits[0]).toMatchObject({ id: 'KB001', title: expect.stringContaining('return policy') });
    expect(hits[0]!.score).toBeGreaterThan(0);
  });

  it('finds the E02 document from the text an image was normalized to', () => {
    const hits = searchPolicies('What does this mean and how do I fix it?\nLED fault code E02: red blinking');
    expect(hits[0]?.id).toBe('KB002');
  });

  it('matches word prefixes ("headphone" finds "headphones")', () => {
    expect(searchPolicies('headphone return')[0]?.id).toBe('KB001');
  });

  it('returns hits best first, at most `limit`, with id, title, text and score', () => {
    const hits = searchPolicies('refund warranty delivery order', { limit: 2, minRelativeScore: 0 });
    expect(hits).toHaveLength(2);
    expect(hits[0]!.score).toBeGreaterThanOrEqual(hits[1]!.score);
    expect(Object.keys(hits[0]!).sort()).toEqual(['id', 'score', 'text', 'title']);
  });

  it('returns nothing for words the knowledge base does not contain', () => {
    expect(searchPolicies('xyzzy plugh')).toEqual([]);
  });

  it('refuses a limit that is not a positive integer', () => {
    expect(() => searchPolicies('refund', { limit: 0 })).toThrow(/limit must be a positive integer/);
    expect(() => retrieveNode({ limit: 1.5 })).toThrow(/retrieveNode: limit must be a positive integer/);
  });
});

describe('citesOnlyRetrieved', () => {
  it('accepts a draft that cites only retrieved ids', () => {
    expect(citesOnlyRetrieved('Full refund [KB001]; refunds take a week [KB009].', ['KB001', 'KB009', 'KB004'])).toEqual({
      ok: true,
      cited: ['KB001', 'KB009'],
      unknown: [],
      reason: '',
    });
  });

  it('rejects a draft that cites nothing', () => {
    const check = citesOnlyRetrieved('You get a full refund.', ['KB001']);
    expect(check.ok).toBe(false);
    expect(check.reason).toMatch(/cites no retrieved document/);
  });

  it('rejects a draft that cites an id retrieval did not return', () => {
    const check = citesOnlyRetrieved('Full refund [KB001] and free shipping [KB004].', ['KB001']);
    expect(check).toMatchObject({ ok: false, cited: ['KB001', 'KB004'], unknown: ['KB004'] });
    expect(check.reason).toMatch(/KB004, which retrieval did not return/);
  });

  it('rejects every draft when nothing was retrieved', () => {
    expect(citesOnlyRetrieved('See [KB001].', []).ok).toBe(false);
  });

  it('lists cited ids once, in order of appearance', () => {
    expect(citedIds('[KB002] then [KB001] and again [KB002]; not KB003 or [kb004]')).toEqual(['KB002', 'KB001']);
  });
});

describe('rewriteQuery', () => {
  it('keeps the keywords, adds related terms and never repeats an earlier query', () => {
    const question = 'What is the return policy for Aero headphones?';
    const first = rewriteQuery(question, [question]);
    expect(first).toBe('return policy aero headphones refund earbuds');
    const second = rewriteQuery(question, [question, first]);
    expect(second).not.toBe(first);
    expect(second.startsWith(first)).toBe(true);
  });
});
