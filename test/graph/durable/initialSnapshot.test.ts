import { describe, expect, it } from 'vitest';
import { StateGraph } from '../../../src/index.js';
import { sqliteTarget } from '../../persistence/storeTargets.js';

const IMAGE = `data:image/png;base64,${'iVBORw0KGgoAAAANSUhEUg'.repeat(20)}`;

describe('the snapshot a stored run starts with', () => {
  it('scrubs inline images as every later checkpoint does', async () => {
    const target = sqliteTarget();
    try {
      let first: unknown;
      const graph = new StateGraph({ name: 'first-snapshot' })
        .addNode('peek', async (ctx) => {
          first = (await target.store.getRun(ctx.runId))?.snapshot;
          return 'done';
        })
        .start('peek');
      const run = await graph.run({ input: 'look', metadata: { image: { dataUrl: IMAGE } } }, { store: target.store });
      expect(run.status).toBe('completed');
      expect(JSON.stringify(first)).toContain('"dataUrl":"[image]"');
      expect(await target.dump()).not.toContain(IMAGE.slice(22, 80));
    } finally {
      await target.close();
    }
  });
});
