import { PostgresRunStore } from './PostgresRunStore.js';
import type { RunStore } from './RunStore.js';
import { SqliteRunStore } from './SqliteRunStore.js';
import { StoreError } from './StoreError.js';

/**
 * The run store the environment asks for: PostgreSQL when `SWITCHBOARD_DATABASE_URL` is a
 * `postgres://` URL (tables in `SWITCHBOARD_DATABASE_SCHEMA`, default `public`), otherwise the embedded SQLite file (`SWITCHBOARD_DB`, default
 * `.switchboard/switchboard.db`).
 */
export function createStoreFromEnv(env: NodeJS.ProcessEnv = process.env): RunStore {
  const url = env.SWITCHBOARD_DATABASE_URL;
  if (url !== undefined && url !== '') {
    if (!/^postgres(ql)?:\/\//.test(url)) {
      throw new StoreError('SWITCHBOARD_DATABASE_URL must be a postgres:// URL; unset it to use the embedded SQLite store', { code: 'store_config' });
    }
    const schema = env.SWITCHBOARD_DATABASE_SCHEMA;
    return new PostgresRunStore(schema ? { url, schema } : { url });
  }
  return new SqliteRunStore(env.SWITCHBOARD_DB ? { file: env.SWITCHBOARD_DB } : {});
}
