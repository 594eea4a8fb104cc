/**
 * Progress of one model's download for the provisioner: bytes per file, the
 * model's total once every file's size is known, the rate over the last few
 * seconds and an ETA.
 */
import type { ModelEntry } from './catalog.js';

/** The rate is measured over this window. */
const RATE_WINDOW_MS = 10_000;
const MB = 2 ** 20;

export class ModelProgress {
  private readonly files = new Map<string, { done: number; total: number | null; seen: boolean }>();
  /** Bytes received from the network in this process (not the part of a resumed file that was already there). */
  private received = 0;
  private samples: { t: number; received: number }[] = [];

  constructor(
    private readonly entry: ModelEntry,
    /** Sizes known before the download (recorded in the checksum lock), by file path. */
    knownSizes: ReadonlyMap<string, number>,
    private readonly now: () => number = Date.now,
  ) {
    for (const f of entry.files) {
      const size = knownSizes.get(f.path);
      this.files.set(f.path, { done: 0, total: size ?? null, seen: false });
    }
  }

  /** A file's bytes so far (and its size when known); the first report of a file is its starting point. */
  update(file: string, done: number, total: number | null): void {
    const f = this.files.get(file) ?? { done: 0, total: null, seen: false };
    if (f.seen && done > f.done) this.received += done - f.done;
    this.files.set(file, { done, total: total ?? f.total, seen: true });
    const t = this.now();
    const last = this.samples.at(-1);
    if (!last || t - last.t >= 250) this.samples.push({ t, received: this.received });
    while (this.samples.length > 2 && t - this.samples[1].t > RATE_WINDOW_MS) this.samples.shift();
  }

  /** A download attempt broke off: what its files held so far is the next attempt's starting point. */
  restart(): void {
    for (const f of this.files.values()) f.seen = false;
  }

  get bytesDone(): number {
    let sum = 0;
    for (const f of this.files.values()) sum += f.done;
    return sum;
  }

  /** The model's size once every required file's size is known, else null. */
  get bytesTotal(): number | null {
    let sum = 0;
    for (const file of this.entry.files) {
      const f = this.files.get(file.path);
      if (f?.total == null) {
        if (file.optional) continue;
        return null;
      }
      sum += f.total;
    }
    return sum;
  }

  /** Bytes a second over the last ten seconds; null before a second has passed. */
  rate(): number | null {
    const first = this.samples[0];
    if (!first) return null;
    const seconds = (this.now() - first.t) / 1000;
    return seconds >= 1 ? (this.received - first.received) / seconds : null;
  }

  /** Seconds left at the current rate, from the exact total or else the catalog's approximate size. */
  etaSeconds(): number | null {
    const rate = this.rate();
    const total = this.bytesTotal ?? (this.entry.approxSizeMB ? this.entry.approxSizeMB * MB : null);
    if (!rate || total === null) return null;
    return Math.max(0, Math.round((total - this.bytesDone) / rate));
  }

  /** `default: 123.4 of 813.0 MB (15%), 4.2 MB/s, ETA 2 min 41 s` (`of ~813 MB` while the total is an estimate). */
  describe(): string {
    const total = this.bytesTotal;
    const approx = this.entry.approxSizeMB;
    const of = total !== null ? ` of ${mb(total)} MB` : approx ? ` of ~${approx} MB` : '';
    const base = total ?? (approx ? approx * MB : null);
    const pct = base ? ` (${Math.min(100, Math.floor((100 * this.bytesDone) / base))}%)` : '';
    const rate = this.rate();
    const eta = this.etaSeconds();
    return (
      `${this.entry.name}: ${mb(this.bytesDone)}${of || ' MB'}${pct}` +
      (rate !== null ? `, ${mb(rate)} MB/s` : '') +
      (eta !== null ? `, ETA ${duration(eta)}` : '')
    );
  }
}

const mb = (bytes: number) => (bytes / MB).toFixed(1);

export function duration(seconds: number): string {
  if (seconds < 60) return `${seconds} s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
  return `${Math.floor(seconds / 3600)} h ${Math.floor((seconds % 3600) / 60)} min`;
}
