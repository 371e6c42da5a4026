import { afterEach, beforeEach } from 'vitest';
import { startFakeOpenAIServer, type FakeOpenAIServer } from '../../src/testing/index.js';

/**
 * A fresh fake OpenAI-compatible server for each test of the enclosing `describe`, closed after it.
 * Call the returned function inside a test to get the running server.
 */
export function useFakeOpenAIServer(): () => FakeOpenAIServer {
  let server: FakeOpenAIServer | undefined;
  beforeEach(async () => {
    server = await startFakeOpenAIServer();
  });
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });
  return () => {
    if (server === undefined) throw new Error('useFakeOpenAIServer(): the server exists only inside a test');
    return server;
  };
}
