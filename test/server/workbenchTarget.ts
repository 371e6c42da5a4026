import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteRunStore, createServer, type ServerOptions, type Workbench } from '../../src/index.js';

/** A workbench over a fresh SQLite file, with helpers for in-process requests. */
export interface TestWorkbench extends Workbench {
  store: SqliteRunStore;
  file: string;
  json(path: string, init?: RequestInit & { json?: unknown }): Promise<{ status: number; body: any }>;
  shutdown(): Promise<void>;
}

export function testWorkbench(options: Omit<ServerOptions, 'store'>): TestWorkbench {
  const file = join(mkdtempSync(join(tmpdir(), 'sb-serve-')), 'runs.db');
  const store = new SqliteRunStore({ file });
  const workbench = createServer({ ...options, store });
  return {
    ...workbench,
    store,
    file,
    async json(path, init = {}) {
      const { json, ...rest } = init;
      const headers = new Headers(rest.headers);
      if (json !== undefined) headers.set('content-type', 'application/json');
      const res = await workbench.app.request(path, { ...rest, headers, ...(json === undefined ? {} : { body: JSON.stringify(json) }) });
      const text = await res.text();
      return { status: res.status, body: text === '' ? null : JSON.parse(text) };
    },
    async shutdown() {
      await workbench.close();
      await store.close();
    },
  };
}
