import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ModelMessage, OpenAIChatModel } from '../../src/index.js';
import { startFakeOpenAIServer, type FakeOpenAIServer } from '../../src/testing/index.js';

const DATA_URL = 'data:image/png;base64,iVBORw0KGgo=';

describe('image input on user messages', () => {
  let server: FakeOpenAIServer;
  let model: OpenAIChatModel;
  beforeEach(async () => {
    server = await startFakeOpenAIServer();
    model = new OpenAIChatModel({ model: 'gpt-vision-test', baseURL: server.baseURL, apiKey: 'test-key', maxRetries: 0 });
  });
  afterEach(async () => {
    await server.close();
  });

  it('sends a text part and one image_url part per image', async () => {
    server.enqueue({ text: 'A red LED.' });
    const response = await model.complete({
      messages: [{ role: 'user', content: 'What is this?', images: [{ url: DATA_URL }, { url: 'https://example.test/led.png', detail: 'low' }] }],
      tools: [],
    });
    expect(response.text).toBe('A red LED.');
    expect(server.requests[0]!.body['messages']).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is this?' },
          { type: 'image_url', image_url: { url: DATA_URL } },
          { type: 'image_url', image_url: { url: 'https://example.test/led.png', detail: 'low' } },
        ],
      },
    ]);
  });

  it('keeps a user message without images as plain string content', async () => {
    server.enqueue({ text: 'ok' });
    await model.complete({ messages: [{ role: 'user', content: 'Hi', images: [] }], tools: [] });
    expect(server.requests[0]!.body['messages']).toEqual([{ role: 'user', content: 'Hi' }]);
  });

  it('accepts only http(s) and data:image URLs', () => {
    expect(ModelMessage.safeParse({ role: 'user', content: 'x', images: [{ url: DATA_URL }] }).success).toBe(true);
    expect(ModelMessage.safeParse({ role: 'user', content: 'x', images: [{ url: 'file:///etc/passwd' }] }).success).toBe(false);
  });
});
