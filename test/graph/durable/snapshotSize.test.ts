import { describe, expect, it } from 'vitest';
import { StateGraph, humanNode, recoverRuns, resumeRun, type RunRecord, type RunStore } from '../../../src/index.js';
import { MIB_TEXT } from '../../persistence/storeEncodingContract.js';
import { postgresTarget, sqliteTarget, type StoreTarget } from '../../persistence/storeTargets.js';

const MIB = 1024 * 1024;

/** Every string of at least 1 MiB in a value, by key path. */
function bigStrings(value: unknown, path = '$', out: string[] = []): string[] {
  if (typeof value === 'string') {
    if (value.length >= MIB) out.push(path);
  } else if (value !== null && typeof value === 'object') {
    for (const [key, inner] of Object.entries(value)) bigStrings(inner, `${path}.${key}`, out);
  }
  return out;
}

/**
 * ask → human (1 MiB reply) → draft → finish. While `draft` is in flight the snapshot refers to the
 * reply from the request, the result, the last result, the current request, the reply key, the
 * delta and the node actor's input.
 */
function replyGraph(onDraft: (ctx: { runId: string }) => Promise<void>) {
  return new StateGraph({ name: 'big-reply' })
    .addNode('ask', () => 'What does the E02 light mean?')
    .addNode('human', humanNode({ reason: 'needs an engineer' }))
    .addNode('draft', async (ctx, req) => {
      await onDraft(ctx);
      const reply = String(req.input);
      return `draft of ${reply.length} characters, starting "${reply.slice(0, 20)}"`;
    })
    .addNode('finish', (ctx, req) => `${String(req.input)}; reply kept: ${ctx.get<string>('humanReply') === MIB_TEXT}`)
    .start('ask')
    .addEdge('ask', 'human')
    .addEdge('human', 'draft')
    .addEdge('draft', 'finish');
}

describe.each([
  ['SQLite', sqliteTarget],
  ['PostgreSQL', postgresTarget],
] as Array<[string, () => StoreTarget]>)('a 1 MiB human reply in a stored run, %s', (_label, makeTarget) => {
  it('is stored once per snapshot (< 1.2 MiB), and a run restored from that snapshot ends as the uninterrupted one', async () => {
    const target = makeTarget();
    const copy = makeTarget();
    try {
      const { store } = target;
      let inFlight: RunRecord | null = null;
      let sizes: { snapshotBytes: number } | null = null;
      const graph = replyGraph(async (ctx) => {
        if (inFlight !== null) return;
        inFlight = await store.getRun(ctx.runId);
        sizes = await store.sizeOf(ctx.runId);
      });
      const waiting = await graph.run('hello', { store });
      expect(waiting.status).toBe('waiting');
      const done = await resumeRun(graph, waiting.runId, { reply: MIB_TEXT }, { store });
      expect(done.status).toBe('completed');
      expect(done.outputText).toBe(`draft of ${MIB_TEXT.length} characters, starting "${MIB_TEXT.slice(0, 20)}"; reply kept: true`);

      // The snapshot taken while draft ran refers to the reply in seven places, and holds it once.
      const snapshot = (inFlight as RunRecord | null)!.snapshot;
      expect(bigStrings(snapshot).length).toBeGreaterThanOrEqual(7);
      expect(sizes!.snapshotBytes).toBeGreaterThan(MIB);
      expect(sizes!.snapshotBytes).toBeLessThan(1.2 * MIB);
      expect((await store.sizeOf(done.runId)).snapshotBytes).toBeLessThan(1.2 * MIB);

      // The same snapshot, stored elsewhere as a run whose process died, recovers to the same answer.
      const stored = (inFlight as RunRecord | null)!;
      const other: RunStore = copy.store;
      const record = await other.insertRun({ runId: stored.runId, graphName: stored.graphName, graphHash: stored.graphHash, status: 'interrupted', owner: null, leaseExpiresAt: null, snapshot: stored.snapshot });
      await other.updateRun(stored.runId, record.version, { lastSeq: stored.lastSeq });
      const outcomes = await recoverRuns({ store: other, graphs: [graph] });
      expect(outcomes).toHaveLength(1);
      const recovered = outcomes[0]!;
      expect(recovered.outcome).toBe('recovered');
      if (recovered.outcome !== 'recovered') return;
      expect(recovered.run.status).toBe('completed');
      expect(recovered.run.outputText).toBe(done.outputText);
      expect(recovered.run.state.get('humanReply')).toBe(MIB_TEXT);
      expect((await other.sizeOf(stored.runId)).snapshotBytes).toBeLessThan(1.2 * MIB);
    } finally {
      await target.close();
      await copy.close();
    }
  }, 60_000);
});
