import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { OfflineModel, OpenAIChatModel, type WorkflowEvent } from 'switchboard';
import { ScriptedModel, type FakeOpenAIServer } from 'switchboard/testing';
import { PolicyReview, citesOnlyRetrieved, policyGraph, reviewPolicyDraft } from '../../../specialists/index.js';
import { useFakeOpenAIServer } from '../../support/useFakeOpenAIServer.js';

const RETURN_QUESTION = 'What is the return policy for Aero headphones? Can I return them unused three days after delivery?';

describe('policyGraph (rag) offline', () => {
  it('answers a return-policy question end to end, citing KB001', async () => {
    const graph = policyGraph({ model: new OfflineModel() });
    expect(graph.name).toBe('rag');
    const run = await graph.run(RETURN_QUESTION);
    expect(run.status).toBe('completed');
    expect(run.path).toEqual(['retrieve', 'draft', 'review']);
    expect(run.outputText).toContain('[KB001]');
    expect(run.outputText).toContain('full refund');
    expect(run.state.get('retrieved')).toContain('KB001');
    expect(citesOnlyRetrieved(run.outputText!, run.state.get('retrieved') as string[]).ok).toBe(true);
    expect(PolicyReview.parse(run.state.get('review'))).toMatchObject({ verdict: 'accept', round: 1 });
  });

  it('writes the retrieval keys the graph author reads', async () => {
    const run = await policyGraph({ model: new OfflineModel() }).run(RETURN_QUESTION);
    expect(run.state.get('question')).toBe(RETURN_QUESTION);
    expect(run.state.get('retrievalQuery')).toBe(RETURN_QUESTION);
    expect(run.state.get('retrievalQueries')).toEqual([RETURN_QUESTION]);
    expect(run.state.get('retrievalRounds')).toBe(1);
    expect(run.state.get('retrievalGap')).toBe(false);
    const passages = run.state.get('passages') as Array<{ id: string; text: string; score: number }>;
    expect(passages[0]).toMatchObject({ id: 'KB001', text: expect.stringContaining('7 days') });
    expect(run.state.get('draft')).toBe(run.outputText);
    expect(run.state.get('draftCitations')).toEqual(['KB001']);
  });

  it('with the retrieval_gap fault, retrieves twice with one requery and a changed query', async () => {
    const events: WorkflowEvent[] = [];
    const run = await policyGraph({ model: new OfflineModel() }).run(RETURN_QUESTION, {
      state: { faults: ['retrieval_gap'] },
      onEvent: (e) => events.push(e),
    });
    expect(run.status).toBe('completed');
    expect(run.path).toEqual(['retrieve', 'draft', 'review', 'requery', 'retrieve', 'draft', 'review']);
    expect(run.path.filter((n) => n === 'requery')).toHaveLength(1);
    const queries = run.state.get('retrievalQueries') as string[];
    expect(queries).toHaveLength(2);
    expect(queries[1]).not.toBe(queries[0]);
    expect(run.state.get('requeryCount')).toBe(1);
    expect(run.outputText).toContain('[KB001]');
    const verdicts = events.filter((e) => e.type === 'node.completed' && (e as { nodeId?: string }).nodeId === 'review').length;
    expect(verdicts).toBe(2);
  });

  it('with the review_rework fault, revises the draft once before accepting it', async () => {
    const run = await policyGraph({ model: new OfflineModel() }).run(RETURN_QUESTION, { state: { faults: ['review_rework'] } });
    expect(run.status).toBe('completed');
    expect(run.path).toEqual(['retrieve', 'draft', 'review', 'draft', 'review']);
    expect(run.state.get('revisions')).toBe(1);
  });

  it('records a handoff when retrieval finds nothing even after requerying', async () => {
    const run = await policyGraph({ model: new OfflineModel() }).run('xyzzy plugh');
    expect(run.status).toBe('completed');
    expect(run.path).toEqual(['retrieve', 'draft', 'review', 'requery', 'retrieve', 'draft', 'review']);
    expect(run.state.get('handoff')).toEqual({ reason: 'retrieval found no policy document after requerying', node: 'review' });
    expect(run.outputText).toBeNull();
  });

  it('keeps nothing from one run in the next', async () => {
    const graph = policyGraph({ model: new OfflineModel() });
    await graph.run('xyzzy plugh', { state: { faults: ['retrieval_gap'] } });
    const run = await graph.run(RETURN_QUESTION);
    expect(run.path).toEqual(['retrieve', 'draft', 'review']);
    expect(run.state.get('handoff')).toBeUndefined();
  });
});

describe('reviewPolicyDraft', () => {
  const base = { draft: 'Full refund [KB001].', retrieved: ['KB001'], faults: [], round: 1, requeries: 0, revisions: 0 } as const;

  it('sends a draft that cites nothing back for revision, then to a person when revisions are spent', () => {
    expect(reviewPolicyDraft({ ...base, draft: 'Full refund.' }).verdict).toBe('revise');
    expect(reviewPolicyDraft({ ...base, draft: 'Full refund.', revisions: 2 })).toMatchObject({ verdict: 'handoff', reason: 'review loop reached budget' });
  });

  it('asks for a requery on a retrieval gap before anything else', () => {
    expect(reviewPolicyDraft({ ...base, retrieved: [], faults: ['review_rework'] }).verdict).toBe('requery');
  });
});

describe('policyGraph with an injected model', () => {
  it('revises a draft citing a document it did not retrieve (ScriptedModel)', async () => {
    const model = new ScriptedModel([
      { expectAgent: 'policy_writer', text: 'Yes, a full refund applies [KB001], and shipping is free [KB004].' },
      { expectAgent: 'policy_writer', text: 'Yes: unused and unopened within 7 days gives a full refund [KB001].' },
    ]);
    const run = await policyGraph({ model }).run(RETURN_QUESTION);
    model.assertDone();
    expect(run.status).toBe('completed');
    expect(run.path).toEqual(['retrieve', 'draft', 'review', 'draft', 'review']);
    expect(run.outputText).toBe('Yes: unused and unopened within 7 days gives a full refund [KB001].');
    const retry = model.requests[1]!.messages.at(-1)!;
    expect(retry.content).toContain('Your previous draft was rejected: the draft cites KB004, which retrieval did not return');
  });

  describe('through the fake OpenAI server', () => {
    const fake = useFakeOpenAIServer();
    let server: FakeOpenAIServer;
    beforeEach(() => {
      server = fake();
    });

    it('sends the question and the passages with their ids, and accepts a cited answer', async () => {
      server.enqueue({ text: 'Unused and unopened within 7 days: full refund [KB001].' });
      const model = new OpenAIChatModel({ model: 'gpt-test', baseURL: server.baseURL, apiKey: 'test-key', maxRetries: 0 });
      const run = await policyGraph({ model }).run(RETURN_QUESTION);
      expect(run.status).toBe('completed');
      expect(run.outputText).toBe('Unused and unopened within 7 days: full refund [KB001].');
      const messages = server.requests[0]!.body['messages'] as Array<{ role: string; content: string }>;
      expect(messages[0]!.content).toMatch(/Cite every passage you use/);
      expect(messages[1]!.content).toContain(`Question: ${RETURN_QUESTION}`);
      expect(messages[1]!.content).toContain('[KB001] Aero headphones and earbuds return policy:');
    });
  });
});
