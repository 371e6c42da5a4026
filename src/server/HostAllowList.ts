import { ServerError } from './ServerError.js';
import { isLoopbackHost } from './tokenAuth.js';

/** A `Host` value split into a normalized name and its port (`''` when none was given). */
export interface HostName {
  /** Lowercase, IPv6 without brackets, one trailing dot dropped (`Localhost.` → `localhost`). */
  name: string;
  port: string;
}

/** A bracketed IPv6 literal or a DNS name / IPv4 address, then an optional port. */
const HOST = /^(?:\[([0-9a-f:.]+)\]|([a-z0-9_.-]+))(?::(\d{1,5}))?$/i;

/**
 * Parses a `Host` header value (`127.0.0.1:4317`, `[::1]:4317`, `localhost`) into its name and port;
 * null when it is not a host (empty, spaces, user info, a path, an unbracketed IPv6 address).
 */
export function parseHost(value: string): HostName | null {
  const match = HOST.exec(value.trim());
  if (match === null) return null;
  let name = (match[1] ?? match[2] ?? '').toLowerCase();
  // `localhost.` and `localhost` are the same DNS name; compare them as one.
  if (name.endsWith('.')) name = name.slice(0, -1);
  if (name === '' || name.startsWith('.') || name.endsWith('.')) return null;
  return { name, port: match[3] ?? '' };
}

/** Addresses that bind every interface: they name no host a client would send. */
export function isWildcardAddress(host: string): boolean {
  return ['0.0.0.0', '::', '[::]', ''].includes(host.trim());
}

/** Splits `SWITCHBOARD_ALLOWED_HOSTS` (commas or whitespace) into names. */
export function allowedHostsFromEnv(value: string | undefined): string[] {
  return (value ?? '').split(/[\s,]+/).filter((name) => name !== '');
}

/**
 * The host names a workbench answers to: loopback names (`localhost`, `127.0.0.0/8`, `::1`) and the
 * given names (`startServer` adds the address it binds). A configured name that starts with a dot
 * (`.example.lan`) also allows its subdomains. Every other `Host` is refused, for GETs too, so a
 * page on a rebinding domain (`evil.example` pointed at 127.0.0.1) cannot read the API.
 *
 * @example
 * const hosts = new HostAllowList(['workbench.lan', '.example.lan']);
 * hosts.allows('WORKBENCH.LAN.'); // true
 * hosts.allows('evil.example');  // false
 */
export class HostAllowList {
  readonly #exact = new Set<string>();
  readonly #suffixes: string[] = [];

  /** Throws a `server_config` ServerError naming an entry that is not a host name. */
  constructor(names: readonly string[]) {
    for (const entry of names) {
      const domain = entry.startsWith('.');
      const bare = domain ? entry.slice(1) : entry;
      // A bare IPv6 address (`fe80::1`, as `--host` takes it) is bracketed as a Host header spells it.
      const parsed = parseHost((bare.match(/:/g)?.length ?? 0) > 1 && !bare.startsWith('[') ? `[${bare}]` : bare);
      if (parsed === null) {
        throw new ServerError(`allowed host "${entry}" is not a host name or address; use names like workbench.lan, .example.lan or 192.168.1.5 (SWITCHBOARD_ALLOWED_HOSTS, comma-separated)`, {
          code: 'server_config',
        });
      }
      if (domain) this.#suffixes.push(`.${parsed.name}`);
      this.#exact.add(parsed.name);
    }
  }

  /** True when a normalized host name (see {@link parseHost}) may be answered. */
  allows(name: string): boolean {
    return isLoopbackHost(name) || this.#exact.has(name) || this.#suffixes.some((suffix) => name.endsWith(suffix));
  }

  /** The configured names, for messages. */
  describe(): string {
    return ['localhost', '127.0.0.1', '[::1]', ...this.#exact, ...this.#suffixes].filter((n, i, all) => all.indexOf(n) === i).join(', ');
  }
}
