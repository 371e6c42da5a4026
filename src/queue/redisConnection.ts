import { QueueError } from './QueueError.js';
import { safeConnectionUrl } from '../errors/safeConnectionUrl.js';

/** How BullMQ reaches Redis: a `redis://` (or `rediss://`) URL, with the settings a worker needs. */
export interface RedisConnection {
  url: string;
  /** BullMQ's blocking commands must wait for Redis to come back rather than fail after a few retries. */
  maxRetriesPerRequest: null;
}

/**
 * The connection for a Redis URL (default `$SWITCHBOARD_REDIS_URL`); a missing or malformed one is
 * a `queue_config` error saying what to set.
 */
export function redisConnection(url: string | undefined = process.env.SWITCHBOARD_REDIS_URL, where = 'the run queue'): RedisConnection {
  if (url === undefined || url === '') {
    throw new QueueError(`${where} needs Redis: pass { redisUrl } or set SWITCHBOARD_REDIS_URL (e.g. redis://127.0.0.1:6379)`, { code: 'queue_config' });
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new QueueError(`${where}: the Redis URL is not a URL (expected redis://host:port[/db]); received ${JSON.stringify(url.slice(0, 40))}`, { code: 'queue_config' });
  }
  if (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:') {
    throw new QueueError(`${where}: the Redis URL must start with redis:// or rediss://; received ${safeConnectionUrl(url)}`, { code: 'queue_config' });
  }
  return { url, maxRetriesPerRequest: null };
}
