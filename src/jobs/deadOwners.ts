/**
 * Telling a dead lease holder on this host at start, so that a restarted server
 * reclaims its crashed predecessor's jobs at once instead of waiting out their
 * leases. Lease owners are `host:pid:token:claim` (see JobRunner): `token` is
 * `<process>.<runner>`, the process part shared by every runner of one process.
 * Only owners on this very host are judged; another host's leases (servers
 * sharing a database) still run out as usual.
 */
import { randomBytes } from 'node:crypto';
import os from 'node:os';

/** Random per process: tells this process apart from an earlier one that had the same pid (pid 1 in a container). */
export const PROCESS_TOKEN = randomBytes(4).toString('hex');

/** Whether a process with this pid exists: signal 0 checks without sending; EPERM means it exists (another user's). */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ESRCH') return false;
    // EPERM: it exists but is not ours to signal. Anything else: unknown, so assume alive (leases stay safe).
    return true;
  }
}

export interface OwnerCheck {
  hostname?: string;
  pid?: number;
  processToken?: string;
  alive?: (pid: number) => boolean;
}

/**
 * Whether the holder of a lease owner id is known to be dead: same host and either its pid is gone, or its pid
 * is ours but it was another process (a different process token). Anything unparsable, or of another host: false.
 */
export function ownerIsDead(owner: string, check: OwnerCheck = {}): boolean {
  const parts = owner.split(':');
  if (parts.length < 4) return false;
  const [pidText, token] = parts.slice(-3, -1);
  const host = parts.slice(0, -3).join(':');
  if (host !== (check.hostname ?? os.hostname()) || !/^[1-9][0-9]*$/.test(pidText)) return false;
  const pid = Number(pidText);
  if (pid === (check.pid ?? process.pid)) return token.split('.')[0] !== (check.processToken ?? PROCESS_TOKEN);
  return !(check.alive ?? pidAlive)(pid);
}
