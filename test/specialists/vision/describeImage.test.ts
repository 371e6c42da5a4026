import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { OfflineModel, OpenAIChatModel, ToolError } from 'switchboard';
import type { FakeOpenAIServer } from 'switchboard/testing';
import { UNRECOGNIZED_TEXT, VISION_FIXTURES_DIR, describeImage, drawLedImage, encodePng } from '../../../specialists/index.js';
import { useFakeOpenAIServer } from '../../support/useFakeOpenAIServer.js';

const E02 = readFileSync(`${VISION_FIXTURES_DIR}e02-red-led.png`);

describe('describeImage offline', () => {
  it('reads the E02 picture from the registry', async () => {
    const description = await describeImage(E02);
    expect(description).toMatchObject({ text: 'LED fault code E02: red blinking', faultCodes: ['E02'], recognized: true, source: 'registry' });
    expect(description.sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it('answers the same through the OfflineModel', async () => {
    expect((await describeImage(E02, { model: new OfflineModel() })).text).toBe('LED fault code E02: red blinking');
  });

  it('says clearly that an unknown picture is not recognized', async () => {
    const description = await describeImage(encodePng(drawLedImage('red', 10, 10)));
    expect(description).toMatchObject({ text: UNRECOGNIZED_TEXT, faultCodes: [], recognized: false, source: 'registry' });
    expect(description.text).toMatch(/not recognized/);
  });

  it('refuses bytes that are not an image', async () => {
    const error = await describeImage(Buffer.from('just text')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ToolError);
    expect((error as Error).message).toMatch(/not a PNG, JPEG, GIF or WebP image/);
  });
});

describe('describeImage with a vision model (fake OpenAI server)', () => {
  const fake = useFakeOpenAIServer();
  let server: FakeOpenAIServer;
  beforeEach(() => {
    server = fake();
  });

  it('sends the picture as an image_url data URL and reads the fault code from the answer', async () => {
    server.enqueue({ text: 'LED fault code E02: red blinking on the charging case.' });
    const model = new OpenAIChatModel({ model: 'gpt-vision-test', baseURL: server.baseURL, apiKey: 'test-key', maxRetries: 0 });
    const description = await describeImage(E02, { model });
    expect(description).toMatchObject({ faultCodes: ['E02'], recognized: true, source: 'openai:gpt-vision-test' });
    const user = (server.requests[0]!.body['messages'] as Array<{ role: string; content: unknown }>)[1]!;
    const parts = user.content as Array<{ type: string; image_url?: { url: string } }>;
    expect(parts.map((p) => p.type)).toEqual(['text', 'image_url']);
    expect(parts[1]!.image_url!.url).toBe(`data:image/png;base64,${E02.toString('base64')}`);
  });
});
