import { describe, expect, it } from 'vitest';
import { ModelCatalog, ModelChoiceError, OfflineModel, StateGraph, checkModelChoice, modelNode } from '../../src/index.js';

const catalog = new ModelCatalog([
  { name: 'small', model: new OfflineModel() },
  { name: 'large', model: new OfflineModel() },
]);
const chooses = new StateGraph({ name: 'chooses' }).addNode('answer', modelNode('answer', catalog, () => () => 'ok')).start('answer');
const plain = new StateGraph({ name: 'plain' }).addNode('answer', () => 'ok').start('answer');

/** The ModelChoiceError a call throws. */
function refusal(call: () => void): ModelChoiceError {
  try {
    call();
  } catch (error) {
    if (error instanceof ModelChoiceError) return error;
    throw error;
  }
  throw new Error('no ModelChoiceError was thrown');
}

describe('checkModelChoice', () => {
  it('accepts a name the module and the graph both offer', () => {
    expect(() => checkModelChoice('large', ['small', 'large'], chooses, '--model')).not.toThrow();
  });

  it('quotes a very long name cut short in every refusal, so the message stays a few lines', () => {
    const long = `${'x'.repeat(100_000)}\u001b[2J`;
    const cases: Array<[() => void, string]> = [
      [() => checkModelChoice(long, [], chooses, '--model'), 'model_not_offered'],
      [() => checkModelChoice(long, ['small', 'large'], chooses, '--model'), 'unknown_model'],
      [() => checkModelChoice(long, [long], plain, '--model'), 'model_not_offered'],
      [() => checkModelChoice(long, [long], chooses, '--model'), 'unknown_model'],
    ];
    for (const [call, code] of cases) {
      const error = refusal(call);
      expect(error.code).toBe(code);
      expect(error.message.length).toBeLessThan(400);
      expect(error.message).toContain(`"${'x'.repeat(60)}"… (100004 characters)`);
    }
  });

  it('quotes a short name whole, its control characters escaped', () => {
    const error = refusal(() => checkModelChoice('x\u001b]0;owned\u0007', ['small'], chooses, 'POST /api/runs model'));
    expect(error.message).toBe('POST /api/runs model: unknown model "x\\u001b]0;owned\\u0007"; known models: small');
  });
});
