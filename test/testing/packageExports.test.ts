import { describe, expect, it } from 'vitest';
import * as testing from '../../src/testing/index.js';

describe('the switchboard/testing package entry', () => {
  it('resolves to the same module as src/testing through package.json exports', async () => {
    const viaPackage = (await import('switchboard/testing')) as typeof testing;
    expect(viaPackage.ScriptedModel).toBe(testing.ScriptedModel);
    expect(typeof viaPackage.startFakeOpenAIServer).toBe('function');
  });
});
