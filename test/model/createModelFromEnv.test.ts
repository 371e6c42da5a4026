import { describe, expect, it } from 'vitest';
import {
  AgentDefinitionError,
  createModelFromEnv,
  DEFAULT_MODEL,
  DEFAULT_MODEL_IDLE_TIMEOUT_MS,
  DEFAULT_MODEL_TIMEOUT_MS,
  OfflineModel,
  OpenAIChatModel,
} from '../../src/index.js';

describe('createModelFromEnv', () => {
  it('returns the OfflineModel when OPENAI_API_KEY is not set', () => {
    expect(createModelFromEnv({})).toBeInstanceOf(OfflineModel);
    expect(createModelFromEnv({ OPENAI_API_KEY: '  ' })).toBeInstanceOf(OfflineModel);
  });

  it('returns an OpenAIChatModel on gpt-4o-mini when OPENAI_API_KEY is set', () => {
    const model = createModelFromEnv({ OPENAI_API_KEY: 'sk-test' });
    expect(model).toBeInstanceOf(OpenAIChatModel);
    expect((model as OpenAIChatModel).model).toBe(DEFAULT_MODEL);
    expect(DEFAULT_MODEL).toBe('gpt-4o-mini');
  });

  it('honours SWITCHBOARD_MODEL and OPENAI_BASE_URL', () => {
    const model = createModelFromEnv({ OPENAI_API_KEY: 'sk-test', SWITCHBOARD_MODEL: 'deepseek-chat', OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' });
    expect(model.name).toBe('openai:deepseek-chat');
  });
});

describe('createModelFromEnv limits', () => {
  const key = { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' };

  it('reads the call, idle and retry limits from the environment', () => {
    const model = createModelFromEnv({
      ...key,
      SWITCHBOARD_MODEL_TIMEOUT_MS: '1500',
      SWITCHBOARD_MODEL_IDLE_TIMEOUT_MS: '700',
      SWITCHBOARD_MODEL_MAX_RETRIES: '0',
    }) as OpenAIChatModel;
    expect([model.timeoutMs, model.idleTimeoutMs]).toEqual([1500, 700]);
  });

  it('uses 60 s and 30 s when nothing is set, whatever process.env says', () => {
    const before = process.env['SWITCHBOARD_MODEL_TIMEOUT_MS'];
    process.env['SWITCHBOARD_MODEL_TIMEOUT_MS'] = 'not a number';
    try {
      const model = createModelFromEnv(key) as OpenAIChatModel;
      expect([model.timeoutMs, model.idleTimeoutMs]).toEqual([DEFAULT_MODEL_TIMEOUT_MS, DEFAULT_MODEL_IDLE_TIMEOUT_MS]);
    } finally {
      if (before === undefined) delete process.env['SWITCHBOARD_MODEL_TIMEOUT_MS'];
      else process.env['SWITCHBOARD_MODEL_TIMEOUT_MS'] = before;
    }
  });

  it('lets options win over the environment, even over a bad variable', () => {
    const model = createModelFromEnv({ ...key, SWITCHBOARD_MODEL_TIMEOUT_MS: 'soon', SWITCHBOARD_MODEL_IDLE_TIMEOUT_MS: '900' }, { timeoutMs: 2500 }) as OpenAIChatModel;
    expect([model.timeoutMs, model.idleTimeoutMs]).toEqual([2500, 900]);
  });

  const bad: Array<[string, string]> = [
    ['SWITCHBOARD_MODEL_TIMEOUT_MS', '0'],
    ['SWITCHBOARD_MODEL_TIMEOUT_MS', '-5'],
    ['SWITCHBOARD_MODEL_TIMEOUT_MS', '1e3'],
    ['SWITCHBOARD_MODEL_TIMEOUT_MS', '0x10'],
    ['SWITCHBOARD_MODEL_TIMEOUT_MS', ' 100'],
    ['SWITCHBOARD_MODEL_TIMEOUT_MS', ''],
    ['SWITCHBOARD_MODEL_TIMEOUT_MS', '1.5'],
    ['SWITCHBOARD_MODEL_TIMEOUT_MS', '2147483648'],
    ['SWITCHBOARD_MODEL_IDLE_TIMEOUT_MS', '30s'],
    ['SWITCHBOARD_MODEL_IDLE_TIMEOUT_MS', '99999999999999999999'],
    ['SWITCHBOARD_MODEL_MAX_RETRIES', '11'],
    ['SWITCHBOARD_MODEL_MAX_RETRIES', 'three'],
  ];
  it.each(bad)('refuses %s=%j with an AgentDefinitionError naming it, with or without a key', (name, value) => {
    for (const env of [{ ...key, [name]: value }, { [name]: value }]) {
      let thrown: unknown;
      try {
        createModelFromEnv(env);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(AgentDefinitionError);
      expect((thrown as AgentDefinitionError).code).toBe('agent_definition');
      expect((thrown as Error).message).toContain(name);
      expect((thrown as Error).message).toContain('plain digits');
    }
  });

  it('refuses out-of-range options in the constructor', () => {
    expect(() => new OpenAIChatModel({ model: 'm', apiKey: 'k', timeoutMs: 0 })).toThrow(AgentDefinitionError);
    expect(() => new OpenAIChatModel({ model: 'm', apiKey: 'k', idleTimeoutMs: 2 ** 31 })).toThrow(/idleTimeoutMs/);
    expect(() => new OpenAIChatModel({ model: 'm', apiKey: 'k', maxRetries: 11 })).toThrow(AgentDefinitionError);
  });
});
