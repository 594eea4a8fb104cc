/**
 * A full disk (issue #29). DATA_DIR holds the local blob store, its scratch folder and the SQLite database, so one
 * file system fills for all of them. An upload that would not fit (or that hits ENOSPC or SQLITE_FULL on the way)
 * is answered 507 `Insufficient Storage`; background jobs stop claiming while free space is below MIN_FREE_BYTES
 * (or since a job hit a full disk) and take up again by themselves once statfs says there is room again.
 */
import { statfs } from 'node:fs/promises';
import { DomainError } from './errors.js';
import type { Logger } from './logger.js';
import { StartupError } from './startupError.js';

/** errno codes of a full disk or quota, and SQLite's full-database code (better-sqlite3's `code`). */
const FULL_CODES = new Set(['ENOSPC', 'EDQUOT', 'SQLITE_FULL']);
/** The same, as child processes (ffmpeg, ExifTool) and libraries (sharp, libvips) word it in their messages. */
const FULL_MESSAGES = /No space left on device|Disk quota exceeded|database or disk is full|\bENOSPC\b/i;

/**
 * Whether an error means this machine's disk is full. A PostgreSQL error (a five-character SQLSTATE: its own
 * server's disk, 53100) or an S3 error (it carries `$metadata`) is not: neither is this machine's DATA_DIR.
 */
export function isDiskFull(err: unknown, depth = 0): boolean {
  if (typeof err !== 'object' || err === null || depth > 4) return false;
  if (err instanceof DomainError) return err.code === 'insufficient_storage';
  const { code, message, cause } = err as { code?: unknown; message?: unknown; cause?: unknown };
  if ('$metadata' in err) return false;
  if (typeof code === 'string') {
    if (FULL_CODES.has(code)) return true;
    if (/^[0-9A-Z]{5}$/.test(code)) return false; // a SQLSTATE
  }
  if (typeof message === 'string' && FULL_MESSAGES.test(message)) return true;
  return isDiskFull(cause, depth + 1);
}

/** The 507 an upload gets when the disk is full or the file would not fit. */
export const insufficientStorage = (message = 'the server has no room to store this upload now; try again later') =>
  new DomainError('insufficient_storage', message);

const MB = 1024 * 1024;
const mb = (bytes: number) => `${Math.round(bytes / MB)} MB`;

/** What /healthz and the event stream say about the disk. */
export interface DiskState {
  /** True while background jobs are paused for want of space. */
  full: boolean;
  /** Why they are paused (null when not). */
  reason: string | null;
  /** Free bytes for this process's user when last looked at (null before the first look or if statfs failed). */
  freeBytes: number | null;
  minFreeBytes: number;
  /** When the pause began (ISO), null when not paused. */
  since: string | null;
}

export interface DiskSpaceOptions {
  /** The folder whose file system is watched (DATA_DIR). */
  dir: string;
  /** MIN_FREE_BYTES: below this much free space uploads are refused and background jobs pause. */
  minFreeBytes: number;
  /** How often free space is looked at. Default 2 s. */
  pollMs?: number;
  logger?: Logger;
}

/** Free space on DATA_DIR's file system: checks for uploads, and the pause and resume of background jobs. */
export class DiskSpace {
  readonly minFreeBytes: number;
  private readonly dir: string;
  private readonly pollMs: number;
  private readonly logger: Logger | undefined;
  private current: DiskState;
  /** When the pause began (ms): it lasts one look at least, so a failed write's clean-up does not end it at once. */
  private pausedAt = 0;
  private timer: NodeJS.Timeout | null = null;
  private readonly listeners = new Set<(state: DiskState) => void>();

  constructor(opts: DiskSpaceOptions) {
    this.dir = opts.dir;
    this.minFreeBytes = opts.minFreeBytes;
    this.pollMs = opts.pollMs ?? 2000;
    this.logger = opts.logger;
    this.current = { full: false, reason: null, freeBytes: null, minFreeBytes: this.minFreeBytes, since: null };
  }

  /** Bytes free for this process's user, or null when the file system cannot be asked. */
  async freeBytes(): Promise<number | null> {
    try {
      const s = await statfs(this.dir);
      return s.bavail * s.bsize;
    } catch {
      return null;
    }
  }

  /** The state as last seen (cheap: from memory). */
  state(): DiskState {
    return { ...this.current };
  }

  get full(): boolean {
    return this.current.full;
  }

  /** Calls `fn` whenever the state turns full or turns back; returns the unsubscribe. */
  onChange(fn: (state: DiskState) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /** Starts looking at free space every pollMs (the first look now). */
  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.check(), this.pollMs);
    this.timer.unref();
    void this.check();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Looks at free space now: pauses below MIN_FREE_BYTES, resumes once there is room again. */
  async check(): Promise<DiskState> {
    const free = await this.freeBytes();
    this.current.freeBytes = free;
    if (free === null) return this.state();
    if (!this.current.full && free < this.minFreeBytes) {
      this.enter(`free space on DATA_DIR (${mb(free)}) is below MIN_FREE_BYTES (${mb(this.minFreeBytes)})`);
    } else if (this.current.full && free >= this.minFreeBytes && Date.now() - this.pausedAt >= this.pollMs) {
      this.leave(free);
    }
    return this.state();
  }

  /** A write failed for want of space (ENOSPC, SQLITE_FULL): pause until a later look finds MIN_FREE_BYTES free. */
  reportFull(err: unknown): void {
    if (this.current.full) return;
    const what = err instanceof Error ? err.message : String(err);
    this.enter(`a write to DATA_DIR failed for want of space (${what.slice(0, 160)})`);
  }

  /**
   * Throws 507 when `bytes` more would leave less than MIN_FREE_BYTES free (bytes unknown: 0). A file system
   * that cannot be asked lets the upload through: a real ENOSPC is still answered 507.
   */
  async ensureRoom(bytes: number): Promise<void> {
    const free = await this.freeBytes();
    if (free === null || free - bytes >= this.minFreeBytes) return;
    throw insufficientStorage(
      `the server has no room for this upload: ${mb(free)} free on its disk, ${mb(bytes)} sent, and ` +
        `${mb(this.minFreeBytes)} are kept free (MIN_FREE_BYTES); try again once space was freed`,
    );
  }

  private enter(reason: string): void {
    this.pausedAt = Date.now();
    this.current = { ...this.current, full: true, reason, since: new Date().toISOString() };
    this.logger?.warn('disk full: background jobs paused until space frees', { reason });
    this.emit();
  }

  private leave(free: number): void {
    this.current = { ...this.current, full: false, reason: null, since: null, freeBytes: free };
    this.logger?.info('disk has room again: background jobs resume', { freeBytes: free });
    this.emit();
  }

  private emit(): void {
    const state = this.state();
    for (const fn of this.listeners) fn(state);
  }
}

/**
 * The start failed while DATA_DIR's disk has less than `minFreeBytes` free (SQLite cannot even make its WAL and
 * shared-memory files on a full disk, and says "disk I/O error"): one line naming the fix instead of a stack trace.
 * Any other failure is rethrown as it was.
 */
export async function explainStartFailure(
  err: unknown,
  { dataDir, minFreeBytes }: { dataDir: string; minFreeBytes: number },
): Promise<never> {
  if (err instanceof StartupError) throw err;
  const free = await new DiskSpace({ dir: dataDir, minFreeBytes }).freeBytes();
  if (free === null || (free >= minFreeBytes && !isDiskFull(err))) throw err;
  const what = err instanceof Error ? err.message : String(err);
  throw new StartupError(
    `the disk of DATA_DIR ${dataDir} is full (${mb(free)} free, MIN_FREE_BYTES is ${mb(minFreeBytes)}), and ` +
      `opening the library failed (${what.slice(0, 120)}): free some space on it, or grow it, and start again`,
    { cause: err },
  );
}
