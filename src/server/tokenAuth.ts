import { timingSafeEqual, createHash } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import { ServerError } from './ServerError.js';

const digest = (text: string) => createHash('sha256').update(text).digest();

/** True when `a` equals `b`, in time that does not depend on where they differ. */
function sameSecret(a: string, b: string): boolean {
  return timingSafeEqual(digest(a), digest(b));
}

/**
 * Middleware that requires the token on every request it guards: `Authorization: Bearer <token>`,
 * or `?token=<token>` for clients that cannot set headers (EventSource). Answers 401 otherwise.
 */
export function tokenAuth(token: string): MiddlewareHandler {
  return async (c, next) => {
    const header = c.req.header('authorization');
    const bearer = header !== undefined && /^bearer\s+/i.test(header) ? header.replace(/^bearer\s+/i, '').trim() : undefined;
    const given = bearer ?? c.req.query('token');
    if (given === undefined || given === '') {
      throw new ServerError('this server requires a token: send "Authorization: Bearer <SWITCHBOARD_TOKEN>" or add ?token=<SWITCHBOARD_TOKEN>', { code: 'unauthorized' });
    }
    if (!sameSecret(given, token)) throw new ServerError('the token does not match SWITCHBOARD_TOKEN', { code: 'unauthorized' });
    await next();
  };
}

/** True for hosts that only this machine can reach: `localhost`, `127.0.0.0/8`, `::1`. */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  // `::ffff:7f00:1` is how a URL spells the IPv4-mapped `::ffff:127.0.0.1`.
  return h === 'localhost' || h === '::1' || /^127(\.\d{1,3}){3}$/.test(h) || /^::ffff:(127(\.\d{1,3}){3}|7f[0-9a-f]{2}:[0-9a-f]{1,4})$/.test(h);
}
