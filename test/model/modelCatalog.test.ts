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
    expect(() => modelsFromEnv({ OPENAI_API_KEY: 'sk-test', SWITCHBOARD_MODELS: 'gpt 4o' })).toThrow('SWITCHBOARD_MODELS: model name "gpt 4o" contains whitespace; use 1–100 letters');
    expect(() => modelsFromEnv({ OPENAI_API_KEY: 'sk-test', SWITCHBOARD_MODELS: 'offline' })).toThrow(AgentDefinitionError);
  });

  it('refuses a configured name longer than 100 characters, or with a control character, naming the variable and quoting the name cut short', () => {
    const refusal = (env: Record<string, string>): AgentDefinitionError => {
      try {
        modelsFromEnv({ OPENAI_API_KEY: 'sk-test', ...env });
      } catch (error) {
        if (error instanceof AgentDefinitionError) return error;
        throw error;
      }
      throw new Error('no AgentDefinitionError was thrown');
    };
    // 100 characters is the longest name, as the customer-service ingest takes.
    expect(modelsFromEnv({ OPENAI_API_KEY: 'sk-test', SWITCHBOARD_MODELS: 'm'.repeat(100) }).names).toContain('m'.repeat(100));
    const long = refusal({ SWITCHBOARD_MODELS: `gpt-4o,${'m'.repeat(100_001)}` });
    expect(long.message).toBe(`SWITCHBOARD_MODELS: model name "${'m'.repeat(60)}"… (100001 characters) is longer than 100 characters; use 1–100 letters, digits and . _ : / @ - (starting with a letter or digit)`);
    expect(refusal({ SWITCHBOARD_MODEL: 'n'.repeat(101) }).message).toMatch(/^SWITCHBOARD_MODEL: model name "n{60}"… \(101 characters\) is longer than 100 characters; /);
    expect(refusal({ SWITCHBOARD_MODELS: 'gpt\u001b[2J' }).message).toMatch(/^SWITCHBOARD_MODELS: model name "gpt\\u001b\[2J" contains a control character; /);
    expect(refusal({ SWITCHBOARD_MODEL: 'gpt\t4o' }).message).toMatch(/^SWITCHBOARD_MODEL: model name "gpt\\t4o" contains a control character; /);
    // Empty and blank entries of the list are skipped, a blank SWITCHBOARD_MODEL means the default.
    expect(modelsFromEnv({ OPENAI_API_KEY: 'sk-test', SWITCHBOARD_MODEL: '  ', SWITCHBOARD_MODELS: ' , ,gpt-4o' }).names).toEqual(['gpt-4o-mini', 'gpt-4o', 'offline']);
  });
});

describe('ModelCatalog', () => {
  it('names the known models when asked for an unknown one, and refuses duplicate or empty lists', () => {
    const catalog = new ModelCatalog([{ name: 'a', model: new OfflineModel() }, { name: 'b', model: new OfflineModel() }]);
    expect(catalog.defaultName).toBe('a');
    expect(() => catalog.get('c')).toThrow('no model named "c" is configured; known models: a, b');
    expect(() => new ModelCatalog([])).toThrow(AgentDefinitionError);
    expect(() => new ModelCatalog([{ name: 'a', model: new OfflineModel() }, { name: 'a', model: new OfflineModel() }])).toThrow('given twice');
    // A long name, given or asked for, is quoted cut short: the message stays a few lines.
    expect(() => new ModelCatalog([{ name: 'x'.repeat(5000), model: new OfflineModel() }])).toThrow(`new ModelCatalog: model name "${'x'.repeat(60)}"… (5000 characters) is longer than 100 characters;`);
    expect(() => catalog.get('y'.repeat(5000))).toThrow(`no model named "${'y'.repeat(60)}"… (5000 characters) is configured; known models: a, b`);
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
