import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';

/** A lease owner id for this process: `host/pid/random`. */
export function newOwnerId(): string {
  return `${hostname()}/${process.pid}/${randomUUID().slice(0, 8)}`;
}

let legs = 0;

/**
 * The owner id one leg claims a run under: `owner/leg-n`, a number no other leg of this process
 * has. A worker advances many runs at once under its one owner id; two legs of the same run on it
 * (the first stalled past its lease, the second given the run's new job) must not take each
 * other's row for their own, or the stale one's failure and cancel paths would write over the live
 * one. `host/pid` stays first, so {@link ownerMayBeAlive} reads it as before; the segment is not a
 * bare number, so an owner without a slash never reads as `host/pid`.
 */
export function legOwnerId(owner: string): string {
  legs += 1;
  return `${owner}/leg-${legs}`;
}

/** True when `leg` is `owner` itself or one of its legs' ids ({@link legOwnerId}). */
export function ownedBy(leg: string | null, owner: string): boolean {
  return leg !== null && (leg === owner || leg.startsWith(`${owner}/`));
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
