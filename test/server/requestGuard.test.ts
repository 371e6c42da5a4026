import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approvalGraph } from '../fixtures/workbenchGraphs.js';
import { testWorkbench, type TestWorkbench } from './workbenchTarget.js';

// In process, hono's app.request() addresses http://localhost/, so the page's own origin is this.
const SELF = 'http://localhost';
const scenarios = [{ id: 'approve', title: 'Approve', message: 'scenario', graph: 'approval' }];
const lines: string[] = [];
const wb = testWorkbench({ graphs: [approvalGraph()], scenarios, log: (line) => lines.push(line) });
let waiting = '';

/** Sends a raw request and returns the status and the parsed error body (if any). */
async function send(path: string, init: RequestInit = {}): Promise<{ status: number; code: string | undefined; message: string }> {
  const res = await wb.app.request(path, { method: 'POST', ...init });
  const text = await res.text();
  const body = text.startsWith('{') ? (JSON.parse(text) as { error?: { code: string; message: string } }) : {};
  return { status: res.status, code: body.error?.code, message: body.error?.message ?? '' };
}

const runCount = async () => ((await wb.json('/api/runs?limit=500')).body as unknown[]).length;
const statusOf = async (runId: string) => (await wb.json(`/api/runs/${runId}`)).body.status as string;

beforeAll(async () => {
  waiting = (await wb.json('/api/runs?wait=true', { method: 'POST', json: { message: 'wait for me' } })).body.runId;
  expect(await statusOf(waiting)).toBe('waiting');
});
afterAll(() => wb.shutdown());

/** Every state-changing route, with a body that would be accepted as JSON from the page. */
const routes = () => [
  { path: '/api/runs', body: JSON.stringify({ message: 'csrf' }) },
  { path: '/api/scenarios/approve/runs', body: '{}' },
  { path: `/api/runs/${waiting}/resume`, body: JSON.stringify({ reply: 'forged reply' }) },
  { path: `/api/runs/${waiting}/cancel`, body: '{}' },
];

describe('request guard: origin', () => {
  it('refuses a state-changing request whose Origin is another site, null, another port or another scheme', async () => {
    const before = await runCount();
    const origins = ['http://evil.example', 'null', 'http://localhost:8080', 'http://127.0.0.1', 'file://', 'chrome-extension://abc', 'http://localhost.evil.example', 'not a url'];
    for (const { path, body } of routes()) {
      for (const origin of origins) {
        const res = await send(path, { headers: { 'content-type': 'application/json', origin }, body });
        expect(res, `${path} from ${origin}`).toMatchObject({ status: 403, code: 'forbidden' });
        expect(res.message).toContain('cross-origin request refused');
      }
    }
    expect(await runCount()).toBe(before);
    expect(await statusOf(waiting)).toBe('waiting');
  });

  it('refuses Sec-Fetch-Site cross-site and same-site (another port of the same host) even without an Origin', async () => {
    for (const site of ['cross-site', 'same-site']) {
      const res = await send('/api/runs', { headers: { 'content-type': 'application/json', 'sec-fetch-site': site }, body: JSON.stringify({ message: 'x' }) });
      expect(res).toMatchObject({ status: 403, code: 'forbidden' });
    }
  });

  it('accepts the page itself: its own Origin (any case, default port spelled out), same-origin fetch metadata, or no Origin at all', async () => {
    const before = await runCount();
    const accepted: Array<Record<string, string>> = [
      { origin: SELF, 'sec-fetch-site': 'same-origin' },
      { origin: 'HTTP://LOCALHOST' },
      { origin: 'http://localhost:80' },
      {},
    ];
    for (const headers of accepted) {
      const res = await send('/api/runs', { headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ message: 'from the page' }) });
      expect(res.status, JSON.stringify(headers)).toBe(202);
    }
    await wb.runs.drain();
    expect(await runCount()).toBe(before + accepted.length);
  });

  it('lets GET requests from other origins through (the browser keeps their answers from the page)', async () => {
    expect((await wb.app.request('/api/runs', { headers: { origin: 'http://evil.example', 'sec-fetch-site': 'cross-site' } })).status).toBe(200);
  });
});

describe('request guard: content type', () => {
  it('refuses the content types a form or a no-cors fetch can send, on every state-changing route', async () => {
    const before = await runCount();
    const forms: Array<{ type?: string; body?: string }> = [
      { type: 'application/x-www-form-urlencoded', body: 'message=csrf&reply=csrf' },
      { type: 'text/plain', body: JSON.stringify({ message: 'csrf', reply: 'csrf' }) },
      { type: 'text/plain;charset=UTF-8', body: JSON.stringify({ message: 'csrf', reply: 'csrf' }) },
      { type: 'TEXT/Plain', body: JSON.stringify({ message: 'csrf', reply: 'csrf' }) },
      { type: 'multipart/form-data; boundary=x', body: '--x\r\nContent-Disposition: form-data; name="message"\r\n\r\ncsrf\r\n--x--\r\n' },
      {},
    ];
    for (const { path } of routes()) {
      for (const { type, body } of forms) {
        const res = await send(path, { headers: type === undefined ? {} : { 'content-type': type }, ...(body === undefined ? {} : { body }) });
        expect(res, `${path} as ${type ?? 'no content type'}`).toMatchObject({ status: 403, code: 'forbidden' });
        expect(res.message).toContain('Content-Type: application/json');
      }
    }
    // A FormData body sets its own multipart type, as a browser form does.
    const form = new FormData();
    form.set('message', 'csrf');
    expect(await send('/api/runs', { body: form })).toMatchObject({ status: 403, code: 'forbidden' });
    expect(await runCount()).toBe(before);
    expect(await statusOf(waiting)).toBe('waiting');
  });

  it('answers other types than JSON with 415, including lists and lookalikes of JSON', async () => {
    for (const type of ['application/xml', 'application/json-patch+json', 'text/plain, application/json', 'application/jsonx', 'text/json']) {
      const res = await send('/api/runs', { headers: { 'content-type': type }, body: JSON.stringify({ message: 'x' }) });
      expect(res, type).toMatchObject({ status: 415, code: 'unsupported_media_type' });
    }
  });

  it('accepts application/json in any case and with parameters', async () => {
    for (const type of ['application/json', 'application/json; charset=utf-8', 'Application/JSON; Charset=UTF-8', ' application/json ;charset=utf-8']) {
      const res = await send('/api/runs?wait=true', { headers: { 'content-type': type }, body: JSON.stringify({ message: 'typed' }) });
      expect(res.status, type).toBe(200);
    }
  });

  it('accepts multipart and empty bodies from a client that says so (X-Switchboard-Client or a Bearer token), nothing else', async () => {
    const form = new FormData();
    form.set('message', 'from a script');
    expect((await send('/api/runs', { headers: { 'x-switchboard-client': 'curl' }, body: form })).status).toBe(202);
    expect((await send('/api/runs', { headers: { authorization: 'Bearer anything' }, body: form })).status).toBe(202);
    expect((await send('/api/scenarios/approve/runs', { headers: { 'x-switchboard-client': 'cli' } })).status).toBe(202);
    // A blank header is no declaration, and the header admits no form-urlencoded or text bodies.
    expect((await send('/api/runs', { headers: { 'x-switchboard-client': ' ' }, body: form })).status).toBe(403);
    expect((await send('/api/runs', { headers: { authorization: 'Basic eDp5' }, body: form })).status).toBe(403);
    const text = await send('/api/runs', { headers: { 'x-switchboard-client': 'curl', 'content-type': 'text/plain' }, body: '{"message":"x"}' });
    expect(text).toMatchObject({ status: 415, code: 'unsupported_media_type' });
    const urlencoded = await send('/api/runs', { headers: { 'x-switchboard-client': 'curl', 'content-type': 'application/x-www-form-urlencoded' }, body: 'message=x' });
    expect(urlencoded.status).toBe(415);
    // The header does not excuse another origin.
    expect((await send('/api/runs', { headers: { 'x-switchboard-client': 'x', origin: 'http://evil.example' }, body: form })).status).toBe(403);
    await wb.runs.drain();
  });
});

describe('request guard: malformed URLs', () => {
  it('answers bad percent-encoding in page and API paths with 400 and logs nothing', async () => {
    lines.length = 0;
    const bad = ['/%E0%A4%A', '/app/%zz.js', '/%', '/api/runs/%E0%A4%A', '/api/runs/%zz/events', '/api/graphs/%ff/definition', '/api/runs/%C0%AF'];
    for (const path of bad) {
      const res = await wb.app.request(path);
      expect(res.status, path).toBe(400);
      expect(((await res.json()) as { error: { code: string; message: string } }).error).toMatchObject({ code: 'bad_request', message: expect.stringContaining('not valid percent-encoding') });
    }
    const post = await send('/api/runs/%zz/cancel', { headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(post).toMatchObject({ status: 400, code: 'bad_request' });
    expect(lines).toEqual([]);
    // Well-formed escapes still work: "%25zz" is the run id "%zz", which does not exist.
    expect((await wb.json('/api/runs/%25zz')).body.error.code).toBe('run_not_found');
    expect((await wb.app.request('/app/%6Dain.js')).status).toBe(200);
  });
});

describe('request guard behind a token', () => {
  const token = 'tok-guard-0123456789';
  let secured: TestWorkbench;
  beforeAll(() => {
    secured = testWorkbench({ graphs: [approvalGraph()], token });
  });
  afterAll(() => secured.shutdown());

  it('applies the same rules: a right token does not admit another origin or a form body', async () => {
    const post = (init: RequestInit) => secured.app.request(`/api/runs?token=${token}`, { method: 'POST', ...init });
    const json = JSON.stringify({ message: 'x' });
    expect((await post({ headers: { 'content-type': 'application/json', origin: 'http://evil.example', authorization: `Bearer ${token}` }, body: json })).status).toBe(403);
    expect((await post({ headers: { 'content-type': 'text/plain' }, body: json })).status).toBe(403);
    expect((await post({ headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'message=x' })).status).toBe(403);
    expect((await post({ headers: { 'content-type': 'application/json', host: 'evil.example' }, body: json })).status).toBe(421);
    expect((await post({ headers: { 'content-type': 'application/json' }, body: json })).status).toBe(202);
    expect((await secured.json('/api/runs', { headers: { authorization: `Bearer ${token}` } })).body).toHaveLength(1);
  });
});
