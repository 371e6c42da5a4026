import { afterEach, describe, expect, it } from 'vitest';
import { MemoryRecorder, StateGraph, secretValues } from '../../src/index.js';
import { sqliteTarget } from '../persistence/storeTargets.js';

// A value that only the environment makes secret: no provider prefix, no `key=` before it, no
// base64 run, so nothing but the list read from the environment can scrub it.
const NAME = 'SWITCHBOARD_TEST_LATE_TOKEN';
const VALUE = 'late-plain-value-7731-qwerty';

/** A graph that writes whatever the variable holds into its state, an event and its output. */
const leaky = () =>
  new StateGraph({ name: 'late-secret' })
    .addNode('a', (ctx) => {
      const value = process.env[NAME] ?? 'nothing';
      ctx.put('note', `using ${value}`);
      return `the value is ${value}`;
    })
    .addNode('b', (_ctx, request) => `${String(request.input)} (checked)`)
    .start('a')
    .addEdge('a', 'b');

afterEach(() => {
  delete process.env[NAME];
});

describe('secret values from the environment', () => {
  it('are read anew at each call: names first, only long values, longest first', () => {
    expect(secretValues()).not.toContain(VALUE);
    process.env[NAME] = VALUE;
    process.env.SWITCHBOARD_TEST_SHORT_PASSWORD = 'short';
    process.env.SWITCHBOARD_TEST_LONGER_SECRET = `${VALUE}-and-more`;
    try {
      const values = secretValues();
      expect(values).toContain(VALUE);
      expect(values).not.toContain('short');
      expect(values.indexOf(`${VALUE}-and-more`)).toBeLessThan(values.indexOf(VALUE));
      expect(secretValues({ PLAIN: VALUE, OTHER_API_KEY: 'abcdefgh', EMPTY_TOKEN: undefined })).toEqual(['abcdefgh']);
    } finally {
      delete process.env.SWITCHBOARD_TEST_SHORT_PASSWORD;
      delete process.env.SWITCHBOARD_TEST_LONGER_SECRET;
    }
  });

  it('are scrubbed from the stored run and the recorded events of a run that starts after they were set, with earlier runs in the process', async () => {
    const target = sqliteTarget();
    try {
      const graph = leaky();
      const before = await graph.run('x', { store: target.store, recorders: [new MemoryRecorder()] });
      expect(before.outputText).toBe('the value is nothing (checked)');

      process.env[NAME] = VALUE;
      const recorder = new MemoryRecorder();
      const run = await graph.run('x', { store: target.store, recorders: [recorder] });
      expect(run.status).toBe('completed');
      // In process the run keeps what its nodes returned; what leaves it does not.
      expect(run.outputText).toBe(`the value is ${VALUE} (checked)`);
      const recorded = JSON.stringify(recorder.events);
      expect(recorded).toContain('[redacted]');
      expect(recorded).not.toContain(VALUE);
      const stored = await target.store.getRun(run.runId);
      expect(stored?.outputText).toBe('the value is [redacted] (checked)');
      const dump = await target.dump();
      expect(dump).toContain(run.runId);
      expect(dump).not.toContain(VALUE);
    } finally {
      await target.close();
    }
  });

  it('are read from the environment once per stored run, for its rows and its recorded events alike', async () => {
    const target = sqliteTarget();
    const original = process.env;
    let scans = 0;
    try {
      const graph = leaky();
      await graph.run('warm', { store: target.store });
      process.env[NAME] = VALUE;
      process.env = new Proxy(original, {
        ownKeys: (env) => {
          scans += 1;
          return Reflect.ownKeys(env);
        },
      });
      const recorder = new MemoryRecorder();
      const run = await graph.run('x', { store: target.store, recorders: [recorder] });
      process.env = original;
      expect(run.status).toBe('completed');
      expect(scans).toBe(1);
      expect(JSON.stringify(recorder.events)).not.toContain(VALUE);
      expect(await target.dump()).not.toContain(VALUE);
    } finally {
      process.env = original;
      await target.close();
    }
  });
});
