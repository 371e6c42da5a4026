import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { graphs, scenarios } from '../../machines/index.js';
import { VISION_FIXTURES_DIR, imageRegistry } from '../../specialists/index.js';
import { testWorkbench } from './workbenchTarget.js';

const QUESTION = 'What does this mean and how do I fix it?';
/** What the answer must say for each fixture picture; a new fixture needs a line here. */
const EXPECTED: Record<string, { says: string; never: string }> = {
  'e02-red-led.png': { says: 'fault code E02', never: 'fully charged' },
  'green-led.png': { says: 'fully charged', never: 'E02' },
};
const fixtures = imageRegistry().map((entry) => ({ ...entry, bytes: readFileSync(`${VISION_FIXTURES_DIR}${entry.file}`) }));

const wb = testWorkbench({ graphs: [...graphs], scenarios: [...scenarios], scenarioRoot: 'machines' });
afterAll(() => wb.shutdown());

type Leg = { runId: string; status: string; path: string[]; outputText: string | null; waiting?: { nodeId: string; reason: string } };

/** Starts a customer-service run with a picture, as JSON or as a multipart form, and waits for the leg. */
async function upload(how: 'json' | 'multipart', bytes: Buffer, name: string): Promise<Leg> {
  if (how === 'json') {
    const image = { mediaType: 'image/png', base64: bytes.toString('base64'), name };
    const res = await wb.json('/api/runs?wait=true', { method: 'POST', json: { graph: 'customer-service', message: QUESTION, image } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body as Leg;
  }
  const form = new FormData();
  form.set('graph', 'customer-service');
  form.set('message', QUESTION);
  form.set('image', new Blob([bytes], { type: 'image/png' }), name);
  const res = await wb.app.request('/api/runs?wait=true', { method: 'POST', headers: { 'x-switchboard-client': 'test' }, body: form });
  expect(res.status).toBe(200);
  return (await res.json()) as Leg;
}

const visionOf = async (runId: string) => (await wb.json(`/api/runs/${runId}`)).body.state.vision as { text: string; recognized: boolean; sha256: string | null };

describe('uploaded pictures reach the vision node', () => {
  it('has an expected answer for every fixture picture', () => {
    expect(fixtures.map((f) => f.file).sort()).toEqual(Object.keys(EXPECTED).sort());
  });

  for (const how of ['json', 'multipart'] as const) {
    it(`answers about what each fixture shows, uploaded as ${how}`, async () => {
      for (const fixture of fixtures) {
        const leg = await upload(how, fixture.bytes, fixture.file);
        const expected = EXPECTED[fixture.file]!;
        expect(leg.status, fixture.file).toBe('completed');
        expect(leg.path.slice(0, 3)).toEqual(['ingest', 'vision', 'classify']);
        expect(await visionOf(leg.runId)).toMatchObject({ text: fixture.text, recognized: true, sha256: fixture.sha256 });
        expect(leg.outputText, fixture.file).toContain(expected.says);
        expect(leg.outputText, fixture.file).not.toContain(expected.never);
      }
    });
  }

  it('reads the picture of a scenario started by its button', async () => {
    const res = await wb.json('/api/scenarios/2-vision/runs?wait=true', { method: 'POST', json: {} });
    expect(res.body).toMatchObject({ status: 'completed' });
    expect(await visionOf(res.body.runId)).toMatchObject({ text: 'LED fault code E02: red blinking', recognized: true });
  });

  it('hands a picture it cannot read to a person, saying why, instead of answering', async () => {
    const green = fixtures.find((f) => f.file === 'green-led.png')!.bytes;
    for (const how of ['json', 'multipart'] as const) {
      const leg = await upload(how, green.subarray(0, 700), 'cut.png');
      expect(leg.status, how).toBe('waiting');
      expect(leg.path).toEqual(['ingest', 'vision', 'human_handoff']);
      expect(leg.waiting).toMatchObject({ nodeId: 'human_handoff', reason: expect.stringMatching(/^the attached picture could not be read: the attachment is a damaged PNG image/) });
      const detail = await wb.json(`/api/runs/${leg.runId}`);
      expect(detail.body.waitReason).toContain('could not be read');
    }
  });
});
