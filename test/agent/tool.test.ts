import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent, AgentDefinitionError, tool } from '../../src/index.js';
import { ScriptedModel } from '../../src/testing/index.js';

describe('tool()', () => {
  it('derives the JSON schema from the zod parameters', () => {
    const params = z.object({ city: z.string().describe('City name'), days: z.number().int().min(1).default(1) });
    const t = tool({ name: 'forecast', description: 'Forecast', parameters: params, execute: () => null });
    expect(t.jsonSchema).toMatchObject({
      type: 'object',
      properties: { city: { type: 'string', description: 'City name' }, days: { type: 'integer', minimum: 1, default: 1 } },
      required: ['city'],
    });
    expect(t.jsonSchema['$schema']).toBeUndefined();
  });

  it('rejects a name the model API would refuse', () => {
    expect(() => tool({ name: 'get weather', description: 'd', parameters: z.object({}), execute: () => null })).toThrow(
      /name must be 1-64 letters, digits/,
    );
  });

  it('rejects parameters that are not a zod object', () => {
    const bad = { name: 'x', description: 'd', parameters: { type: 'object' }, execute: () => null } as never;
    expect(() => tool(bad)).toThrow(AgentDefinitionError);
    expect(() => tool(bad)).toThrow(/parameters must be a zod object/);
  });

  it('rejects a non-positive timeout', () => {
    expect(() => tool({ name: 'x', description: 'd', parameters: z.object({}), execute: () => null, timeoutMs: 0 })).toThrow(/timeoutMs/);
  });

  it('parses arguments with zod before execute sees them (defaults applied)', async () => {
    const seen: unknown[] = [];
    const t = tool({
      name: 'forecast',
      description: 'Forecast',
      parameters: z.object({ city: z.string(), days: z.number().default(3) }),
      execute: (args) => seen.push(args),
    });
    const model = new ScriptedModel([{ toolCalls: [{ name: 'forecast', arguments: { city: 'Rome' } }] }, { text: 'ok' }]);
    await new Agent({ name: 'a', instructions: 'i', model, tools: [t] }).run('go');
    expect(seen).toEqual([{ city: 'Rome', days: 3 }]);
  });

  it('reports output that is not JSON as a failed observation', async () => {
    const t = tool({ name: 'big', description: 'd', parameters: z.object({}), execute: () => ({ n: 10n }) });
    const model = new ScriptedModel([{ toolCalls: [{ name: 'big' }] }, { text: 'ok' }]);
    const result = await new Agent({ name: 'a', instructions: 'i', model, tools: [t] }).run('go');
    expect(result.toolResults[0]).toMatchObject({ ok: false, code: 'tool_failed' });
    expect(!result.toolResults[0]!.ok && result.toolResults[0]!.error).toContain('not JSON');
  });
});

describe('new Agent()', () => {
  const model = new ScriptedModel([]);
  const t = tool({ name: 't', description: 'd', parameters: z.object({}), execute: () => null });

  it('rejects a blank name and a maxIterations below 1', () => {
    expect(() => new Agent({ name: ' ', instructions: 'i', model })).toThrow(/name: name must be a non-blank string/);
    expect(() => new Agent({ name: 'a', instructions: 'i', model, maxIterations: 0 })).toThrow(/maxIterations must be at least 1/);
  });

  it('defaults maxIterations to 8', () => {
    expect(new Agent({ name: 'a', instructions: 'i', model }).maxIterations).toBe(8);
  });

  it('rejects duplicate tool names and allowedTools naming unknown tools', () => {
    expect(() => new Agent({ name: 'a', instructions: 'i', model, tools: [t, t] })).toThrow(/two tools are named "t"/);
    expect(() => new Agent({ name: 'a', instructions: 'i', model, tools: [t], allowedTools: ['u'] })).toThrow(/allowedTools names "u"/);
  });

  it('rejects a model that is not a ModelClient', () => {
    expect(() => new Agent({ name: 'a', instructions: 'i', model: {} as never })).toThrow(/model must be a ModelClient/);
  });
});
