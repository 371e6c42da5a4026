import { describe, expect, it } from 'vitest';
import {
  AgentDefinitionError,
  MemoryRunStore,
  ModelCatalog,
  OfflineModel,
  OpenAIChatModel,
  RUN_MODEL_KEY,
  StateGraph,
  humanNode,
  modelNode,
  modelsFromEnv,
  resumeRun,
  type ModelClient,
} from '../../src/index.js';

describe('modelsFromEnv', () => {
  it('offers the embedded offline model alone without OPENAI_API_KEY', () => {
    const catalog = modelsFromEnv({ SWITCHBOARD_MODELS: 'gpt-4o' });
    expect(catalog.names).toEqual(['offline']);
    expect(catalog.get()).toBeInstanceOf(OfflineModel);
  });

  it('offers SWITCHBOARD_MODEL first, then each further SWITCHBOARD_MODELS name once, then offline, all on OPENAI_BASE_URL', () => {
    const catalog = modelsFromEnv({ OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: 'http://127.0.0.1:9/v1', SWITCHBOARD_MODEL: 'deepseek-chat', SWITCHBOARD_MODELS: ' gpt-4o ,deepseek-chat,, llama3.1:8b' });
    expect(catalog.names).toEqual(['deepseek-chat', 'gpt-4o', 'llama3.1:8b', 'offline']);
    expect(catalog.get().name).toBe('openai:deepseek-chat');
    expect(catalog.get('llama3.1:8b')).toBeInstanceOf(OpenAIChatModel);
    expect(catalog.get('offline')).toBeInstanceOf(OfflineModel);
  });

  it('refuses a configured name that is not a model name, or that takes the offline model\'s name', () => {
    expect(() => modelsFromEnv({ OPENAI_API_KEY: 'sk-test', SWITCHBOARD_MODELS: 'gpt 4o' })).toThrow(/SWITCHBOARD_MODEL \/ SWITCHBOARD_MODELS: .*"gpt 4o" is not valid/);
    expect(() => modelsFromEnv({ OPENAI_API_KEY: 'sk-test', SWITCHBOARD_MODELS: 'offline' })).toThrow(AgentDefinitionError);
  });
});

describe('ModelCatalog', () => {
  it('names the known models when asked for an unknown one, and refuses duplicate or empty lists', () => {
    const catalog = new ModelCatalog([{ name: 'a', model: new OfflineModel() }, { name: 'b', model: new OfflineModel() }]);
    expect(catalog.defaultName).toBe('a');
    expect(() => catalog.get('c')).toThrow('no model named "c" is configured; known models: a, b');
    expect(() => new ModelCatalog([])).toThrow(AgentDefinitionError);
    expect(() => new ModelCatalog([{ name: 'a', model: new OfflineModel() }, { name: 'a', model: new OfflineModel() }])).toThrow('given twice');
  });
});

describe('modelNode', () => {
  const a = new OfflineModel();
  const b = new OfflineModel();
  const catalog = new ModelCatalog([{ name: 'a', model: a }, { name: 'b', model: b }]);
  const label = (model: ModelClient) => (model === a ? 'ran on a' : model === b ? 'ran on b' : 'ran on another');

  /** choose (writes the request's model) → ask (waits for a person) → answer (a node built per model). */
  function graph(builds: string[]) {
    return new StateGraph({ name: 'chooses' })
      .addNode('choose', (ctx, request) => {
        const asked = request.metadata?.['model'];
        if (typeof asked === 'string') ctx.put(RUN_MODEL_KEY, asked);
        return null;
      })
      .addNode('ask', humanNode({ reason: 'a person confirms' }))
      .addNode(
        'answer',
        modelNode('answer', catalog, (model) => {
          builds.push(label(model));
          return () => label(model);
        }),
      )
      .start('choose')
      .addEdge('choose', 'ask')
      .addEdge('ask', 'answer');
  }

  it('takes the model a run was started with (metadata.model) when no node recorded one, and records it for the rest of the run', async () => {
    const only = () =>
      new StateGraph({ name: 'only-model' })
        .addNode('first', modelNode('first', catalog, (model) => () => label(model)))
        .addNode('second', modelNode('second', catalog, (model) => () => `${label(model)} again`))
        .start('first')
        .addEdge('first', 'second');
    const chosen = await only().run({ input: 'hi', metadata: { model: 'b' } });
    expect(chosen.outputText).toBe('ran on b again');
    expect(chosen.state.get(RUN_MODEL_KEY)).toBe('b');
    const plain = await only().run('hi');
    expect(plain.outputText).toBe('ran on a again');
    expect(plain.state.get(RUN_MODEL_KEY)).toBeUndefined();
    const unknown = await only().run({ input: 'hi', metadata: { model: 'c' } });
    expect(unknown.status).toBe('failed');
    expect(unknown.error?.message).toContain('no model named "c" is configured; known models: a, b');
  });

  it('runs the node built for the model the run chose, after a resume too, and builds it once per model', async () => {
    const builds: string[] = [];
    const store = new MemoryRunStore();
    const first = graph(builds);
    const onB = await first.run({ input: 'q', metadata: { model: 'b' } }, { store });
    const onDefault = await first.run('q', { store });
    expect([onB.status, onDefault.status]).toEqual(['waiting', 'waiting']);
    // Another graph object, as after a restart: the choice comes back from the stored state.
    const again = graph(builds);
    expect((await resumeRun(again, onB.runId, { reply: 'ok' }, { store })).outputText).toBe('ran on b');
    expect((await resumeRun(again, onDefault.runId, { reply: 'ok' }, { store })).outputText).toBe('ran on a');
    const third = await first.run({ input: 'q', metadata: { model: 'b' } }, { store });
    expect((await resumeRun(again, third.runId, { reply: 'ok' }, { store })).outputText).toBe('ran on b');
    expect(builds).toEqual(['ran on b', 'ran on a']);
  });

  it('fails the run naming the known models when the state names another', async () => {
    const direct = await new StateGraph({ name: 'direct' })
      .addNode('choose', (ctx) => (ctx.put(RUN_MODEL_KEY, 'gpt-5'), null))
      .addNode('answer', modelNode('answer', catalog, (model) => () => label(model)))
      .start('choose')
      .addEdge('choose', 'answer')
      .run('q');
    expect(direct.status).toBe('failed');
    expect(direct.error?.message).toContain('no model named "gpt-5" is configured; known models: a, b');
  });
});
