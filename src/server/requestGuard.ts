import type { Context, MiddlewareHandler } from 'hono';
import { parseHost, type HostAllowList, type HostName } from './HostAllowList.js';
import { ServerError } from './ServerError.js';

/**
 * The header a script that is not a browser page sends to post a form (multipart) or an empty body:
 * a page on another origin cannot set it without a CORS preflight, which this server never grants.
 */
export const CLIENT_HEADER = 'x-switchboard-client';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
/** Content types a plain HTML form or a `no-cors` fetch can send to any origin. */
const SIMPLE_TYPES = new Set(['application/x-www-form-urlencoded', 'multipart/form-data', 'text/plain', '']);

/** A request's media type: the content type without parameters, lowercase (`''` when absent). */
export function mediaTypeOf(c: Context): string {
  return (c.req.header('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
}

const forbidden = (message: string) => new ServerError(message, { code: 'forbidden' });

/** The host the request is addressed to: its `Host` header and, for an absolute request target, the URL's too. */
function checkHost(c: Context, hosts: HostAllowList): HostName {
  const url = new URL(c.req.url);
  const header = c.req.header('host');
  const values = header === undefined ? [url.host] : [header, url.host];
  let first: HostName | null = null;
  for (const value of values) {
    const parsed = parseHost(value);
    if (parsed === null || !hosts.allows(parsed.name)) {
      throw new ServerError(
        `this workbench does not answer to Host "${value.slice(0, 200)}"; it answers to ${hosts.describe()}. ` +
          'To reach it by another name, add the name to SWITCHBOARD_ALLOWED_HOSTS (comma-separated) or the allowedHosts option',
        { code: 'misdirected_request' },
      );
    }
    first ??= parsed;
  }
  return first!;
}

/** Refuses a path whose percent-encoding does not decode (the page and the API alike). */
function checkPath(c: Context): void {
  const path = new URL(c.req.url).pathname;
  try {
    decodeURIComponent(path);
  } catch {
    throw new ServerError(`the URL path is not valid percent-encoding (${path.slice(0, 200)}); encode "%" as %25 and other bytes as UTF-8`, { code: 'bad_request' });
  }
}

/** True when `origin` (an `Origin` header) names the same host and port the request was sent to. */
function sameOrigin(origin: string, host: HostName): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
  const parsed = parseHost(url.host);
  if (parsed === null || parsed.name !== host.name) return false;
  // URL drops a scheme's default port; so does this, for a `Host` that spells it out.
  const hostPort = host.port === '80' || host.port === '443' ? '' : host.port;
  return parsed.port === hostPort;
}

/** A client that can set headers a cross-origin page cannot send without a preflight. */
function declaresClient(c: Context): boolean {
  const client = c.req.header(CLIENT_HEADER);
  const auth = c.req.header('authorization');
  return (client !== undefined && client.trim() !== '') || (auth !== undefined && /^bearer\s+\S/i.test(auth));
}

/** Refuses state-changing requests a page on another origin could send. */
function checkStateChange(c: Context, host: HostName): void {
  const origin = c.req.header('origin');
  if (origin !== undefined && !sameOrigin(origin, host)) {
    throw forbidden(`cross-origin request refused: Origin "${origin.slice(0, 200)}" is not this server; only the workbench page itself (or a client that sends no Origin) may change runs`);
  }
  const site = c.req.header('sec-fetch-site');
  if (site !== undefined && site !== 'same-origin' && site !== 'none') {
    throw forbidden(`cross-site request refused (Sec-Fetch-Site: ${site.slice(0, 40)}); only the workbench page itself may change runs`);
  }
  const media = mediaTypeOf(c);
  if (media === 'application/json') return;
  const declared = declaresClient(c);
  if (declared && (media === '' || media === 'multipart/form-data')) return;
  const received = media === '' ? 'no Content-Type' : `Content-Type ${media.slice(0, 100)}`;
  if (!declared && SIMPLE_TYPES.has(media)) {
    throw forbidden(
      `${c.req.method} ${c.req.path} with ${received} refused: any web page could send it. Send the body as Content-Type: application/json ` +
        `(multipart/form-data and empty bodies also need an "X-Switchboard-Client: <name>" header)`,
    );
  }
  throw new ServerError(`${c.req.method} ${c.req.path} with ${received} is not read: send application/json (or multipart/form-data with an X-Switchboard-Client header)`, {
    code: 'unsupported_media_type',
  });
}

/**
 * Middleware in front of every route that keeps other web pages out of the workbench:
 * - a `Host` outside `hosts` is refused with 421 `misdirected_request` (DNS rebinding), for every method;
 * - a path with malformed percent-encoding is refused with 400 `bad_request`;
 * - a state-changing request (anything but GET, HEAD, OPTIONS) is refused with 403 `forbidden` when
 *   its `Origin` is not this server (`Origin: null` included), when `Sec-Fetch-Site` says another
 *   site, or when its content type is one a form or `no-cors` fetch can send (form-urlencoded,
 *   multipart, text/plain, none) unless it carries `X-Switchboard-Client` or a Bearer token, which
 *   admit multipart and empty bodies; other types than `application/json` get 415.
 */
export function requestGuard(hosts: HostAllowList): MiddlewareHandler {
  return async (c, next) => {
    const host = checkHost(c, hosts);
    checkPath(c);
    if (!SAFE_METHODS.has(c.req.method)) checkStateChange(c, host);
    await next();
  };
}
