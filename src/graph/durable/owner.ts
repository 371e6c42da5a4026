import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';

/** A lease owner id for this process: `host/pid/random`. */
export function newOwnerId(): string {
  return `${hostname()}/${process.pid}/${randomUUID().slice(0, 8)}`;
}

/**
 * False when the owner is a process on this host that no longer exists, so its runs need not wait
 * for the lease to expire. Owners on other hosts, or unparseable ones, count as alive.
 */
export function ownerMayBeAlive(owner: string | null): boolean {
  if (owner === null) return false;
  const [host, pid] = owner.split('/');
  if (host !== hostname() || pid === undefined || !/^\d+$/.test(pid)) return true;
  if (Number(pid) === process.pid) return true;
  try {
    process.kill(Number(pid), 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
