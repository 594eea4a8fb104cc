/**
 * The watched-folder service: for every configured folder, file system events (fs.watch, recursive) and a
 * periodic full pass (the safety net for missed events, and the catch-up at start) name files to look at.
 * A file is imported once its size and mtime stayed the same for the settle time (a copy in progress, a
 * camera still writing, waits); a missing file is forgotten (and its item deleted when mirroring). One file
 * is handled at a time, in the background; stop() ends the watching and waits for the file in hand.
 */
import { watch, type FSWatcher } from 'node:fs';
import { lstat } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from '../../platform/logger.js';
import type { WatchedFolder } from '../../storage/watchStore.js';
import { FolderPaths, forgetWatchedFile, importWatchedFile, type WatchDeps } from './importFile.js';
import { relPathWatched, scanFolder } from './scan.js';

interface Live {
  folder: WatchedFolder;
  fsWatcher: FSWatcher | null;
  /** Files waiting to settle: their last size and mtime (-1 before the first look). */
  pending: Map<string, { size: number; mtimeMs: number }>;
}

export interface WatchService {
  /** Re-reads the configured folders (after the API changed them). */
  reload(): void;
  /** Walks every folder now; resolves when the pass and the work it queued are done (tests, shutdown). */
  rescan(): Promise<void>;
  /** Resolves once nothing is pending or in hand. */
  idle(): Promise<void>;
  stop(): Promise<void>;
}

export function startWatchService(deps: WatchDeps, logger: Logger): WatchService {
  const service = new Watcher(deps, logger);
  service.start();
  return service;
}

class Watcher implements WatchService {
  private readonly live = new Map<string, Live>();
  private readonly folders: FolderPaths;
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly settleMs: number;
  /** The files in hand, one after another. */
  private chain: Promise<unknown> = Promise.resolve();
  /** Configuration syncs and passes, one after another. */
  private syncing: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(
    private readonly deps: WatchDeps,
    private readonly logger: Logger,
  ) {
    this.folders = new FolderPaths(deps);
    this.settleMs = deps.config.watchSettleMs;
  }

  start(): void {
    const tick = () => this.later(this.deps.config.watchRescanSeconds * 1000, () => void this.resync().then(tick));
    void this.resync().then(tick);
  }

  reload(): void {
    void this.resync();
  }

  async rescan(): Promise<void> {
    await this.resync();
    await this.idle();
  }

  async idle(): Promise<void> {
    for (;;) {
      await this.syncing;
      const c = this.chain;
      await c;
      const waiting = [...this.live.values()].some((l) => l.pending.size > 0);
      if (!waiting && c === this.chain) return;
      if (waiting) await new Promise((r) => setTimeout(r, Math.max(10, this.settleMs / 2)));
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    for (const l of this.live.values()) l.fsWatcher?.close();
    this.live.clear();
    await this.syncing.catch(() => undefined);
    await this.chain.catch(() => undefined);
  }

  private later(ms: number, fn: () => void): void {
    const t = setTimeout(() => {
      this.timers.delete(t);
      if (!this.stopped) fn();
    }, ms);
    this.timers.add(t);
  }

  /** One file at a time, in order; a failure is logged and the next pass tries again. */
  private enqueue(what: string, fn: () => Promise<string>): void {
    this.chain = this.chain.then(async () => {
      if (this.stopped) return;
      try {
        const outcome = await fn();
        if (outcome !== 'unchanged') this.logger.info('watched file', { file: what, outcome });
      } catch (err) {
        this.logger.warn('watched file failed; tried again at the next pass', { file: what, err });
      }
    });
  }

  /** Looks at a file again after the settle time; imports it once it stopped changing. */
  private async check(l: Live, relPath: string): Promise<void> {
    const p = l.pending.get(relPath);
    if (!p || this.stopped || this.live.get(l.folder.id) !== l) return;
    const absPath = path.join(l.folder.dir, relPath);
    const st = await lstat(absPath).catch(() => null);
    if (!st || !st.isFile()) {
      l.pending.delete(relPath);
      this.enqueue(relPath, () => forgetWatchedFile(this.deps, l.folder, relPath));
      return;
    }
    if (st.size !== p.size || st.mtimeMs !== p.mtimeMs) {
      Object.assign(p, { size: st.size, mtimeMs: st.mtimeMs });
      this.later(this.settleMs, () => void this.check(l, relPath));
      return;
    }
    l.pending.delete(relPath);
    const seen = { relPath, absPath, size: st.size, mtimeMs: st.mtimeMs };
    this.enqueue(relPath, () => importWatchedFile(this.deps, this.folders, l.folder, seen));
  }

  private touch(l: Live, relPath: string): void {
    if (!relPathWatched(relPath) || l.pending.has(relPath)) return;
    l.pending.set(relPath, { size: -1, mtimeMs: -1 });
    this.later(this.settleMs, () => void this.check(l, relPath));
  }

  /** A full pass: new or changed files are looked at; recorded files no longer there are forgotten. */
  private async pass(l: Live): Promise<void> {
    const files = await scanFolder(l.folder.dir);
    const records = new Map((await this.deps.storage.watches.files(l.folder.id)).map((r) => [r.relPath, r]));
    for (const f of files) {
      const r = records.get(f.relPath);
      records.delete(f.relPath);
      if (!r || r.sizeBytes !== f.size || r.mtimeMs !== f.mtimeMs) this.touch(l, f.relPath);
    }
    for (const gone of records.keys()) this.touch(l, gone);
  }

  /** Starts watching one folder's events (recursive fs.watch); the periodic pass covers what it misses. */
  private open(folder: WatchedFolder): Live {
    const l: Live = { folder, fsWatcher: null, pending: new Map() };
    try {
      l.fsWatcher = watch(folder.dir, { recursive: true, persistent: false }, (_event, name) => {
        if (name) this.touch(l, String(name).split(path.sep).join('/'));
        else void this.pass(l);
      });
      l.fsWatcher.on('error', (err) =>
        this.logger.warn('watching stopped; the periodic pass goes on', { dir: folder.dir, err }),
      );
    } catch (err) {
      this.logger.warn('cannot watch folder (yet); the periodic pass will look again', { dir: folder.dir, err });
    }
    return l;
  }

  /** Makes the watched set what the store says, then passes over every folder. */
  private async sync(): Promise<void> {
    const wanted = new Map((await this.deps.storage.watches.list()).map((f) => [f.id, f]));
    for (const [id, l] of this.live) {
      const f = wanted.get(id);
      if (f && f.dir === l.folder.dir && f.into === l.folder.into && f.mirrorDeletions === l.folder.mirrorDeletions)
        continue;
      l.fsWatcher?.close();
      this.live.delete(id);
    }
    for (const [id, f] of wanted) if (!this.live.has(id)) this.live.set(id, this.open(f));
    const passes = [...this.live.values()].map((l) =>
      this.pass(l).catch((err) => this.logger.warn('watched folder pass failed', { dir: l.folder.dir, err })),
    );
    await Promise.all(passes);
  }

  private resync(): Promise<void> {
    this.syncing = this.syncing
      .then(() => (this.stopped ? undefined : this.sync()))
      .catch((err) => this.logger.warn('watched folders', { err }));
    return this.syncing;
  }
}
