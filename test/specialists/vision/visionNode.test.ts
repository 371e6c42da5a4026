import { readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { OfflineModel, StateGraph, humanNode, resumeRun, type WorkflowEvent } from 'switchboard';
import {
  HANDOFF_KEY,
  ImageDescription,
  VISION_FIXTURES_DIR,
  policyDraftNode,
  policyReviewNode,
  retrieveNode,
  visionNode,
  drawLedImage,
  encodePng,
} from '../../../specialists/index.js';
import { sqliteTarget, type StoreTarget } from '../../persistence/storeTargets.js';

const E02_FILE = `${VISION_FIXTURES_DIR}e02-red-led.png`;
const E02 = readFileSync(E02_FILE);
const BASE64 = E02.toString('base64');
const QUESTION = 'What does this mean and how do I fix it?';

/** ingest → vision → retrieve → draft → review, as the customer-service graph runs an image question. */
function imageGraph() {
  const model = new OfflineModel();
  return new StateGraph({ name: 'image-question' })
    .addNode('ingest', (ctx, request) => {
      ctx.put('question', String(request.input));
      return null;
    })
    .addNode('vision', visionNode({ model, baseDir: dirname(VISION_FIXTURES_DIR) }))
    .addNode('retrieve', retrieveNode())
    .addNode('draft', policyDraftNode({ model }))
    .addNode('review', policyReviewNode())
    .start('ingest')
    .addEdge('ingest', 'vision')
    .addEdge('vision', 'retrieve')
    .addEdge('retrieve', 'draft')
    .addEdge('draft', 'review');
}

/** True when any piece of the image's base64 (long enough to be unambiguous) appears in the text. */
const leaks = (text: string) => [0, 200, 600, 1200].some((at) => text.includes(BASE64.slice(at, at + 64)));

describe('visionNode', () => {
  it('normalizes the attached E02 picture to text that retrieval uses, and the answer explains E02', async () => {
    const events: WorkflowEvent[] = [];
    for await (const event of imageGraph().stream({ input: QUESTION, metadata: { image: { path: 'fixtures/e02-red-led.png' } } })) events.push(event);
    const run = (events.at(-1) as unknown as { run: { status: string; path: string[]; state: Map<string, unknown>; outputText: string } }).run;
    expect(run.status).toBe('completed');
    expect(run.path).toEqual(['ingest', 'vision', 'retrieve', 'draft', 'review']);
    expect(ImageDescription.parse(run.state.get('vision'))).toMatchObject({ text: 'LED fault code E02: red blinking', faultCodes: ['E02'], recognized: true });
    // The other fault-code documents rank below it; the answer cites only KB002.
    expect((run.state.get('retrieved') as string[])[0]).toBe('KB002');
    expect(run.outputText?.match(/\[KB\d{3}\]/g)).toEqual(['[KB002]']);
    expect(run.outputText).toContain('E02');
    expect(run.outputText).toContain('[KB002]');
    const described = events.find((e) => e.type === 'vision.described');
    expect(described).toMatchObject({ faultCodes: ['E02'], recognized: true });
    expect(leaks(JSON.stringify([...run.state]))).toBe(false);
    expect(leaks(JSON.stringify(events))).toBe(false);
  });

  it('hands the next node the question with the image as text', async () => {
    const seen: unknown[] = [];
    const graph = new StateGraph({ name: 'handoff' })
      .addNode('vision', visionNode({ model: new OfflineModel() }))
      .addNode('next', (_ctx, request) => {
        seen.push(request);
        return null;
      })
      .start('vision')
      .addEdge('vision', 'next');
    await graph.run({ input: QUESTION, metadata: { image: { dataUrl: `data:image/png;base64,${BASE64}` } } });
    expect(seen).toMatchObject([{ input: `${QUESTION}\n\nAttached image: LED fault code E02: red blinking` }]);
  });

  it('records an unreadable attachment as unrecognized instead of failing the run', async () => {
    const run = await imageGraph().run({ input: QUESTION, metadata: { image: { path: 'fixtures/missing.png' } } });
    expect(run.status).toBe('completed');
    expect(run.state.get('vision')).toMatchObject({ recognized: false, faultCodes: [], sha256: null });
    expect((run.state.get('vision') as { text: string }).text).toMatch(/could not be used: the attached image fixtures\/missing.png cannot be read \(ENOENT\)/);
  });

  it('refuses bare base64 (nothing could redact it) without failing the run', async () => {
    const run = await imageGraph().run({ input: QUESTION, metadata: { image: { base64: BASE64 } } });
    expect(run.state.get('vision')).toMatchObject({ recognized: false, text: expect.stringMatching(/must be \{ path \} or \{ dataUrl/) });
  });

  it('does nothing when no image is attached', async () => {
    const run = await imageGraph().run(QUESTION);
    expect(run.state.has('vision')).toBe(false);
  });

  it('reads the workbench form of an upload (data URL with media type, size, hash and name)', async () => {
    const image = { mediaType: 'image/png', dataUrl: `data:image/png;base64,${BASE64}`, bytes: E02.length, sha256: 'a'.repeat(64), name: 'led.png' };
    const run = await imageGraph().run({ input: QUESTION, metadata: { image } });
    expect(run.state.get('vision')).toMatchObject({ text: 'LED fault code E02: red blinking', recognized: true });
    expect(run.state.has(HANDOFF_KEY)).toBe(false);
  });

  it('asks for a person, with the reason, when the picture cannot be read or nothing in it is recognized', async () => {
    const cases: Array<[string, unknown, RegExp]> = [
      ['cut off', { dataUrl: `data:image/png;base64,${E02.subarray(0, 400).toString('base64')}` }, /could not be read: .*damaged PNG image.*cut off/],
      ['not an image', { dataUrl: `data:image/png;base64,${Buffer.from('GIF-less text, not a picture').toString('base64')}` }, /could not be read: .*not a PNG, JPEG, GIF or WebP/],
      ['redacted', { mediaType: 'image/png', dataUrl: '[image]', bytes: 1648, sha256: 'b'.repeat(64) }, /could not be read: its bytes are not available here .*restored from storage.*send the picture again/],
      ['missing file', { path: 'fixtures/missing.png' }, /could not be read: .*ENOENT/],
      ['unknown picture', { dataUrl: `data:image/png;base64,${encodePng(drawLedImage('red', 5, 5)).toString('base64')}` }, /shows nothing the vision model recognizes/],
    ];
    for (const [label, image, reason] of cases) {
      const run = await imageGraph().run({ input: QUESTION, metadata: { image } });
      expect(run.state.get(HANDOFF_KEY), label).toMatchObject({ node: 'vision', reason: expect.stringMatching(reason) });
    }
  });

  it('says the picture is gone when a stored run reaches vision after a restore (the bytes are never stored)', async () => {
    const target = sqliteTarget();
    try {
      // A person approves before the picture is looked at, so the run is restored from storage in between.
      const graph = new StateGraph({ name: 'approve-then-look' })
        .addNode('approve', humanNode({ reason: 'approve first' }))
        .addNode('vision', visionNode({ model: new OfflineModel() }))
        .start('approve')
        .addEdge('approve', 'vision');
      const waiting = await graph.run({ input: QUESTION, metadata: { image: { dataUrl: `data:image/png;base64,${BASE64}` } } }, { store: target.store });
      expect(waiting.status).toBe('waiting');
      const done = await resumeRun(graph, waiting.runId, { reply: 'go ahead' }, { store: target.store });
      expect(done.state.get('vision')).toMatchObject({ recognized: false, sha256: null });
      expect(done.state.get(HANDOFF_KEY)).toMatchObject({ reason: expect.stringContaining('send the picture again') });
    } finally {
      await target.close();
    }
  });

  describe('in a stored run', () => {
    let target: StoreTarget;
    beforeEach(() => {
      target = sqliteTarget();
    });
    afterEach(async () => {
      await target.close();
    });

    it('stores no image bytes in the snapshot or the event log, even for a data URL attachment', async () => {
      const run = await imageGraph().run({ input: QUESTION, metadata: { image: { dataUrl: `data:image/png;base64,${BASE64}` } } }, { store: target.store });
      expect(run.status).toBe('completed');
      expect(run.outputText).toContain('E02');
      const record = await target.store.getRun(run.runId);
      const stored = await target.store.listEvents(run.runId);
      expect(stored.length).toBeGreaterThan(5);
      expect(leaks(JSON.stringify(record))).toBe(false);
      expect(leaks(JSON.stringify(stored))).toBe(false);
      expect(leaks(await target.dump())).toBe(false);
      expect(leaks(JSON.stringify(run.state.get('vision')))).toBe(false);
    });
  });
});
