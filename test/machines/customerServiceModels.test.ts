import { describe, expect, it } from 'vitest';
import { modelsFromEnv } from '../../src/index.js';
import { customerService } from '../../machines/customerService.js';

describe('customer-service model choice', () => {
  const graph = customerService({ models: modelsFromEnv({}) });

  it('records the model a run uses, the catalog\'s default when the request names none', async () => {
    const run = await graph.run('hello there');
    expect(run.status).toBe('completed');
    expect(run.state.get('runModel')).toBe('offline');
  });

  it('fails a run whose request names a model it was not given, naming the known ones, before any agent runs', async () => {
    const run = await graph.run({ input: 'hello there', metadata: { model: 'gpt-imaginary' } });
    expect(run.status).toBe('failed');
    expect(run.path).toEqual(['ingest']);
    expect(run.error?.message).toContain('request metadata names the model "gpt-imaginary", which this graph was not given; known models: offline');
  });
});
