import { request } from 'node:http';
import { connect } from 'node:net';
import { hostname } from 'node:os';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServerError, SqliteRunStore, createServer, startServer, type RunningServer } from '../../src/index.js';
import { approvalGraph } from '../fixtures/workbenchGraphs.js';

/** A GET with an exact Host header over a real socket; resolves with the status and body. */
function getWithHost(server: RunningServer, path: string, host: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: server.port, path, headers: { host } }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** Writes a raw HTTP request and returns the status line. */
function raw(server: RunningServer, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(server.port, '127.0.0.1', () => socket.write(text));
    let out = '';
    socket.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('\r\n')) {
        socket.destroy();
        resolve(out.slice(0, out.indexOf('\r\n')));
      }
    });
    socket.on('error', reject);
  });
}

const tempStore = () => new SqliteRunStore({ file: join(mkdtempSync(join(tmpdir(), 'sb-hosts-')), 'runs.db') });

describe('Host allow-list (real sockets)', () => {
  let store: SqliteRunStore;
  let server: RunningServer;
  beforeAll(async () => {
    store = tempStore();
    server = await startServer({ store, graphs: [approvalGraph()], port: 0, allowedHosts: ['workbench.lan', '.example.lan'] });
  });
  afterAll(async () => {
    await server.stop();
    await store.close();
  });

  it('answers loopback names, with or without a port, in any case, with a trailing dot, and IPv6 loopback', async () => {
    const p = server.port;
    for (const host of [`127.0.0.1:${p}`, '127.0.0.1', `localhost:${p}`, `LocalHost:${p}`, `localhost.:${p}`, `[::1]:${p}`, '[::1]', `127.0.0.2:${p}`, `[::ffff:7f00:1]:${p}`]) {
      expect((await getWithHost(server, '/api/runs', host)).status, host).toBe(200);
    }
  });

  it('answers configured names and subdomains of a dotted entry', async () => {
    for (const host of ['workbench.lan', `WORKBENCH.LAN.:${server.port}`, 'a.example.lan', 'b.a.example.lan:9', 'example.lan']) {
      expect((await getWithHost(server, '/api/runs', host)).status, host).toBe(200);
    }
  });

  it('refuses every other Host with 421 misdirected_request, for the API and the page alike', async () => {
    const hostile = [
      'evil.example',
      `evil.example:${server.port}`,
      'evil.example.',
      'localhost.evil.example',
      '127.0.0.1.nip.io',
      'workbench.lan.evil.example',
      'badexample.lan',
      'localhost..',
      '[::2]',
      '[fe80::1]:80',
      '192.0.2.1',
      '2130706433',
    ];
    for (const host of hostile) {
      for (const path of ['/api/runs', '/', '/app/main.js', '/api/health']) {
        const res = await getWithHost(server, path, host);
        expect(res.status, `${host} ${path}`).toBe(421);
        expect(JSON.parse(res.body).error.code).toBe('misdirected_request');
      }
    }
    const one = JSON.parse((await getWithHost(server, '/api/runs', 'evil.example')).body).error.message as string;
    expect(one).toContain('SWITCHBOARD_ALLOWED_HOSTS');
    expect(one).toContain('localhost');
  });

  it('refuses hosts that are not host names at all (user info, spaces, unbracketed IPv6) without answering 200', async () => {
    for (const host of ['localhost@evil.example', 'evil.example/x', '::1', 'local host']) {
      const res = await getWithHost(server, '/api/runs', host).catch(() => ({ status: 0, body: '' }));
      expect([0, 400, 421], host).toContain(res.status);
    }
  });

  it('checks an absolute request target too (its host, not only the Host header)', async () => {
    expect(await raw(server, `GET http://evil.example/api/runs HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nConnection: close\r\n\r\n`)).toContain('421');
    expect(await raw(server, `GET http://127.0.0.1:${server.port}/api/runs HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nConnection: close\r\n\r\n`)).toContain('200');
  });
});

describe('Host allow-list configuration', () => {
  it('answers the name it is bound to', async () => {
    const store = tempStore();
    // The machine's own name (resolvable here) is not loopback by name, so it needs a token.
    const name = hostname().toLowerCase();
    const server = await startServer({ store, graphs: [approvalGraph()], port: 0, host: name, token: 'tok-bound-0123456789' });
    try {
      const res = await new Promise<number>((resolve, reject) => {
        const req = request({ host: name, port: server.port, path: '/api/health', headers: { host: `${name}:${server.port}`, authorization: 'Bearer tok-bound-0123456789' } }, (r) => {
          r.resume();
          resolve(r.statusCode ?? 0);
        });
        req.on('error', reject);
        req.end();
      });
      expect(res).toBe(200);
    } finally {
      await server.stop();
      await store.close();
    }
  });

  it('adds names from SWITCHBOARD_ALLOWED_HOSTS (commas or spaces) to the option', async () => {
    const saved = process.env.SWITCHBOARD_ALLOWED_HOSTS;
    process.env.SWITCHBOARD_ALLOWED_HOSTS = 'one.lan, two.lan three.lan';
    const store = tempStore();
    try {
      const { app } = createServer({ store, graphs: [approvalGraph()], allowedHosts: ['four.lan'] });
      for (const host of ['one.lan', 'two.lan', 'three.lan:4317', 'four.lan']) {
        expect((await app.request('http://127.0.0.1/api/health', { headers: { host } })).status, host).toBe(200);
      }
      expect((await app.request('http://127.0.0.1/api/health', { headers: { host: 'five.lan' } })).status).toBe(421);
    } finally {
      if (saved === undefined) delete process.env.SWITCHBOARD_ALLOWED_HOSTS;
      else process.env.SWITCHBOARD_ALLOWED_HOSTS = saved;
      await store.close();
    }
  });

  it('refuses to start with an entry that is not a host name, naming it', async () => {
    const store = tempStore();
    for (const entry of ['http://x.lan/', 'a b', '.', 'user@host']) {
      const error = (() => {
        try {
          createServer({ store, graphs: [approvalGraph()], allowedHosts: [entry] });
          return null;
        } catch (e) {
          return e;
        }
      })();
      expect(error, entry).toBeInstanceOf(ServerError);
      expect(error).toMatchObject({ code: 'server_config' });
      expect((error as Error).message).toContain(`"${entry}"`);
    }
    await store.close();
  });
});
