import { execFileSync } from 'node:child_process';
import { accessSync, constants, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';

/** The one line that installs Redis on Debian (printed when a queue test has to skip). */
export const INSTALL_REDIS = 'apt-get install -y redis-server';

/** The `redis-server` binary on PATH (or Debian's), or null: no npm package ships one. */
export function findRedisServer(): string | null {
  const dirs = [...(process.env.PATH ?? '').split(delimiter), '/usr/bin', '/usr/local/bin', '/usr/sbin'];
  for (const dir of dirs) {
    if (dir === '') continue;
    const file = join(dir, 'redis-server');
    try {
      accessSync(file, constants.X_OK);
      return file;
    } catch {
      // not here
    }
  }
  return null;
}

/** Why the queue tests skip on this machine, or null when they run. */
export const REDIS_MISSING: string | null = findRedisServer() === null ? `no redis-server on this machine; install Redis with: ${INSTALL_REDIS}` : null;

/** A throwaway Redis on a free loopback port, stopped by its pid. */
export interface TestRedis {
  url: string;
  port: number;
  pid: number;
  /** Stops the server (SIGTERM by pid; SIGKILL with `kill`), waiting until it is gone. */
  stop(options?: { kill?: boolean }): Promise<void>;
  /**
   * SIGKILLs it, leaves the port closed `downMs` (default 0), and starts it again on the same port:
   * empty without persistence, from its append-only file with `appendonly`.
   */
  restart(options?: { downMs?: number }): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function until(what: string, check: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`redis-server: ${what} within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * Starts `redis-server --port P --bind 127.0.0.1 --save '' --appendonly no --daemonize yes --pidfile F`.
 * `appendonly`: with an append-only file fsynced every second (Redis's default for it), as an
 * operator runs Redis that must survive a restart; a SIGKILL then loses at most the last second.
 */
export async function startTestRedis(options: { appendonly?: boolean } = {}): Promise<TestRedis> {
  const binary = findRedisServer();
  if (binary === null) throw new Error(REDIS_MISSING!);
  const dir = mkdtempSync(join(tmpdir(), 'sb-redis-'));
  const pidfile = join(dir, 'redis.pid');
  const port = await freePort();
  let pid = 0;
  const launch = async () => {
    rmSync(pidfile, { force: true });
    execFileSync(binary, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', options.appendonly === true ? 'yes' : 'no', '--appendfsync', 'everysec', '--daemonize', 'yes', '--pidfile', pidfile, '--dir', dir, '--logfile', join(dir, 'redis.log')]);
    await until('no pidfile', () => existsSync(pidfile) && readFileSync(pidfile, 'utf8').trim() !== '');
    pid = Number(readFileSync(pidfile, 'utf8').trim());
    await until('not accepting connections', () => accepts(port));
  };
  await launch();
  // If the test process dies without teardown, do not leave a server running.
  const killOnExit = () => {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  };
  process.on('exit', killOnExit);
  const stop = async (options: { kill?: boolean } = {}) => {
    if (alive(pid)) process.kill(pid, options.kill ? 'SIGKILL' : 'SIGTERM');
    await until('did not stop', () => !alive(pid));
  };
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    get pid() {
      return pid;
    },
    stop: async (options) => {
      await stop(options);
      process.off('exit', killOnExit);
      rmSync(dir, { recursive: true, force: true });
    },
    restart: async ({ downMs = 0 } = {}) => {
      await stop({ kill: true });
      await new Promise((r) => setTimeout(r, downMs));
      await launch();
    },
  };
}
