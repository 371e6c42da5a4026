import { describe, expect, it } from 'vitest';
import { ScriptedModel, ScriptMismatchError } from '../../src/testing/index.js';

const ask = (model: ScriptedModel, tools: string[] = []) =>
  model.complete({
    messages: [{ role: 'user', content: 'hi' }],
    tools: tools.map((name) => ({ name, description: name, parameters: { type: 'object' } })),
    agent: 'tester',
  });

describe('ScriptedModel', () => {
  it('plays its turns in order', async () => {
    const model = new ScriptedModel([{ text: 'one' }, { toolCalls: [{ name: 'look', arguments: { q: 1 } }] }]);
    expect((await ask(model)).text).toBe('one');
    expect((await ask(model)).toolCalls).toEqual([{ id: 'call_scripted_2_1', name: 'look', arguments: '{"q":1}' }]);
    model.assertDone();
  });

  it('fails loudly on a call the script did not expect', async () => {
    const model = new ScriptedModel([{ text: 'only' }]);
    await ask(model);
    await expect(ask(model)).rejects.toThrow(ScriptMismatchError);
    await expect(ask(model)).rejects.toThrow(/has only 1 turns/);
  });

  it('fails loudly on turns that were never played', async () => {
    const model = new ScriptedModel([{ text: 'a' }, { text: 'b' }, { toolCalls: [{ name: 'x' }] }]);
    await ask(model);
    expect(() => model.assertDone()).toThrow(/2 of 3 scripted turns were never played: turn 2 \(text "b"\); turn 3 \(tools x\)/);
  });

  it('checks the tools and agent a turn expects', async () => {
    const model = new ScriptedModel([{ expectTools: ['a', 'b'], text: 'ok' }, { expectTools: ['a'], text: 'no' }, { expectAgent: 'other' }]);
    await expect(ask(model, ['b', 'a'])).resolves.toMatchObject({ text: 'ok' });
    await expect(ask(model, ['a', 'c'])).rejects.toThrow(/expected tools \[a\], the request offered \[a, c\]/);
    await expect(ask(model)).rejects.toThrow(/expected a request from agent "other", received one from "tester"/);
  });

  it('rejects an invalid script when it is made', () => {
    expect(() => new ScriptedModel([{ text: 'ok', toolCalls: [{ name: '' }] }])).toThrow(/turn 1 is invalid/);
  });
});
