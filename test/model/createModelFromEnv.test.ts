import { describe, expect, it } from 'vitest';
import { createModelFromEnv, DEFAULT_MODEL, OfflineModel, OpenAIChatModel } from '../../src/index.js';

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
