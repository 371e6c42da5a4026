import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import {
  Agent,
  AgentDefinitionError,
  AgentNode,
  OfflineModel,
  RuntimeAgentNode,
  SqliteRunStore,
  StateGraph,
  humanNode,
  resumeRun,
  type OfflineConversation,
} from '../../src/index.js';
import { ScriptedModel } from '../../src/testing/index.js';

const Review = z.object({ approved: z.boolean(), issues: z.array(z.string()) });

describe('agent node input and output mappers', () => {
  it('builds the prompt from state and writes the structured result back, keeping the handoff', async () => {
    const prompts: string[] = [];
    const reviewer = new Agent({
      name: 'reviewer',
      instructions: 'Review the draft.',
      model: new OfflineModel(),
      outputSchema: Review,
      offline: ({ input }) => {
        prompts.push(input);
        return { json: { approved: !input.includes('TODO'), issues: input.includes('TODO') ? ['has a TODO'] : [] } };
      },
    });
    const graph = new StateGraph({ name: 'write-review' })
      .addNode('write', (ctx, request) => {
        ctx.put('draft', `Draft about ${String(request.input)}: TODO`);
        return 'drafted';
      })
      .addNode(
        'review',
        new AgentNode(reviewer, {
          input: (ctx) => `Topic: ${ctx.get<string>('topic') ?? 'none'}\nDraft: ${ctx.get<string>('draft')}`,
          output: (result) => {
            expectTypeOf(result.output).toEqualTypeOf<z.infer<typeof Review> | undefined>();
            return { approved: result.output!.approved, issues: result.output!.issues };
          },
        }),
      )
      .addNode('after', (_ctx, request) => `next got: ${String(request.input)}`)
      .start('write')
      .addEdge('write', 'review')
      .addEdge('review', 'after');
    const run = await graph.run('tides');
    expect(run.status).toBe('completed');
    expect(prompts).toEqual(['Topic: none\nDraft: Draft about tides: TODO']);
    expect(run.state.get('approved')).toBe(false);
    expect(run.state.get('issues')).toEqual(['has a TODO']);
    // The next node still gets the agent's answer (its JSON text), as without mappers.
    expect(run.outputText).toBe('next got: {"approved":false,"issues":["has a TODO"]}');
  });

  it('accepts messages from the input mapper and appends them after the system prompt', async () => {
    const model = new ScriptedModel([{ text: 'ok' }]);
    const agent = new Agent({ name: 'a', instructions: 'sys', model });
    const node = new AgentNode(agent, {
      input: (ctx) => [
        { role: 'user', content: `history: ${ctx.get<string>('history')}` },
        { role: 'assistant', content: 'noted' },
        { role: 'user', content: 'now answer' },
      ],
    });
    const graph = new StateGraph().addNode('seed', (ctx) => (ctx.put('history', 'h1'), null)).addNode('a', node).start('seed').addEdge('seed', 'a');
    await graph.run('ignored');
    expect(model.requests[0]!.messages).toEqual([
      { role: 'system', content: 'sys' },
      { role: 'user', content: 'history: h1' },
      { role: 'assistant', content: 'noted' },
      { role: 'user', content: 'now answer' },
    ]);
  });

  it('keeps the request input when the input mapper returns null or undefined', async () => {
    const seen: OfflineConversation[] = [];
    const agent = new Agent({ name: 'a', instructions: 'i', model: new OfflineModel(), offline: (c) => (seen.push(c), 'x') });
    await new StateGraph().addNode('a', new AgentNode(agent, { input: () => null })).start('a').run('the request');
    await new StateGraph().addNode('a', new AgentNode(agent, { input: async () => undefined })).start('a').run('another');
    expect(seen.map((c) => c.input)).toEqual(['the request', 'another']);
  });

  it('lets the output mapper write through ctx.put itself, and reads state written earlier in the run', async () => {
    const agent = new Agent({ name: 'counter', instructions: 'i', model: new OfflineModel(), offline: ({ input }) => `seen ${input}` });
    const graph = new StateGraph({ maxSteps: 10 })
      .addNode(
        'count',
        new AgentNode(agent, {
          input: (ctx) => String(ctx.get<number>('n') ?? 0),
          output: (result, ctx) => {
            ctx.put('n', (ctx.get<number>('n') ?? 0) + 1);
            ctx.put('last', result.outputText);
          },
        }),
      )
      .start('count')
      .addConditionalEdges('count', (ctx) => ((ctx.get<number>('n') ?? 0) < 3 ? 'count' : null));
    const run = await graph.run('go');
    expect(run.state.get('n')).toBe(3);
    expect(run.state.get('last')).toBe('seen 2');
  });

  it('works on a RuntimeAgentNode, whose session remembers earlier inputs', async () => {
    const model = new ScriptedModel([{ text: 'one' }, { text: 'two' }]);
    const node = new RuntimeAgentNode(new Agent({ name: 'a', instructions: 'i', model }).newSession(), {
      input: (ctx) => `turn ${ctx.get<number>('turn') ?? 0}`,
      output: (result, ctx) => ({ turn: (ctx.get<number>('turn') ?? 0) + 1, [`answer${ctx.get<number>('turn') ?? 0}`]: result.outputText }),
    });
    const graph = new StateGraph({ maxSteps: 5 }).addNode('a', node).start('a').addConditionalEdges('a', (ctx) => (ctx.get('turn') === 1 ? 'a' : null));
    const run = await graph.run('go');
    expect(model.requests[1]!.messages.filter((m) => m.role === 'user').map((m) => m.content)).toEqual(['turn 0', 'turn 1']);
    expect(Object.fromEntries([...run.state].filter(([k]) => k.startsWith('answer')))).toEqual({ answer0: 'one', answer1: 'two' });
  });

  it('does not run the output mapper when the agent fails', async () => {
    let called = false;
    const agent = new Agent({ name: 'a', instructions: 'i', model: new OfflineModel(), outputSchema: Review, offline: () => 'not json' });
    const run = await new StateGraph().addNode('a', new AgentNode(agent, { output: () => ((called = true), { x: 1 }) })).start('a').run('go');
    expect(run.status).toBe('failed');
    expect(called).toBe(false);
    expect(run.state.has('x')).toBe(false);
  });

  it('fails the run with a typed error when a mapper returns something unusable', async () => {
    const agent = new Agent({ name: 'a', instructions: 'i', model: new OfflineModel() });
    const cases = [
      new AgentNode(agent, { input: () => 42 as never }),
      new AgentNode(agent, { input: () => ({ input: 'x' }) as never }),
      new AgentNode(agent, { input: () => [] }),
      new AgentNode(agent, { input: () => [{ role: 'tool', toolCallId: 'c', name: 't', content: 'x' }] }),
      new AgentNode(agent, { output: () => ['a'] as never }),
      new AgentNode(agent, { output: () => 'key' as never }),
      new AgentNode(agent, { output: () => new Map() as never }),
    ];
    for (const node of cases) {
      const run = await new StateGraph().addNode('a', node).start('a').run('go');
      expect(run.status).toBe('failed');
      expect(run.error?.code).toBe('agent_definition');
    }
  });

  it('fails the run with the mapper\'s own error when it throws or rejects', async () => {
    const agent = new Agent({ name: 'a', instructions: 'i', model: new OfflineModel() });
    for (const node of [
      new AgentNode(agent, { input: () => { throw new Error('no draft in state'); } }),
      new AgentNode(agent, { output: async () => Promise.reject(new Error('store write refused')) }),
    ]) {
      const run = await new StateGraph().addNode('a', node).start('a').run('go');
      expect(run.status).toBe('failed');
      expect(run.error?.message).toMatch(/no draft in state|store write refused/);
    }
  });

  it('keeps the mapped state and the structured result across a durable wait and a restart', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'sb-mappers-')), 'runs.db');
    const build = () => {
      const reviewer = new Agent({
        name: 'reviewer',
        instructions: 'i',
        model: new OfflineModel(),
        outputSchema: Review,
        offline: ({ input }) => ({ json: { approved: false, issues: [`unclear: ${input}`] } }),
      });
      return new StateGraph({ name: 'durable-review' })
        .addNode('review', new AgentNode(reviewer, { input: (_ctx, request) => `draft ${String(request.input)}`, output: (r) => ({ review: r.output }) }))
        .addNode('approve', humanNode({ reason: 'approve the review' }))
        .addNode('publish', (ctx) => `issues: ${ctx.get<z.infer<typeof Review>>('review')!.issues.join('; ')}`)
        .start('review')
        .addEdge('review', 'approve')
        .addEdge('approve', 'publish');
    };
    const first = new SqliteRunStore({ file });
    const waiting = await build().run('v1', { store: first });
    expect(waiting.status).toBe('waiting');
    await first.close();
    const second = new SqliteRunStore({ file });
    const done = await resumeRun(build(), waiting.runId, { reply: 'ok' }, { store: second });
    expect(done.status).toBe('completed');
    expect(done.state.get('review')).toEqual({ approved: false, issues: ['unclear: draft v1'] });
    expect(done.outputText).toBe('issues: unclear: draft v1');
    await second.close();
  });

  it('refuses bad node options when the node is built', () => {
    const agent = new Agent({ name: 'a', instructions: 'i', model: new OfflineModel() });
    expect(() => new AgentNode(agent, { input: 'draft' as never })).toThrow(AgentDefinitionError);
    expect(() => new AgentNode(agent, { toolChoice: 'required' } as never)).toThrow(/toolChoice and outputSchema belong to the Agent/);
    expect(() => new AgentNode(agent, null as never)).toThrow(/options must be an object/);
    expect(() => new RuntimeAgentNode(agent.newSession(), { output: 1 as never })).toThrow(/output must be a function/);
  });
});
