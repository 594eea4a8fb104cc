/**
 * Progress of the uploads: on a terminal one line redrawn in place (a bar, counts, bytes, rate and ETA);
 * elsewhere (a log file, CI) a plain line every few seconds.
 */

export interface Counts {
  total: number;
  totalBytes: number;
  uploaded: number;
  skipped: number;
  failed: number;
  bytes: number;
}

export const formatBytes = (n: number): string => {
  const units = ['B', 'kB', 'MB', 'GB', 'TB'];
  let v = n;
  let u = 0;
  while (v >= 1000 && u < units.length - 1) {
    v /= 1000;
    u++;
  }
  return `${v.toFixed(u === 0 ? 0 : 1)} ${units[u]}`;
};

export const formatDuration = (ms: number): string => {
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`;
  return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
};

/** The line for the counts so far, `elapsedMs` after the uploads began. */
export function progressLine(c: Counts, elapsedMs: number, barWidth = 0): string {
  const done = c.uploaded + c.skipped + c.failed;
  const secs = Math.max(elapsedMs / 1000, 0.001);
  const filesPerSec = c.uploaded / secs;
  const bytesPerSec = c.bytes / secs;
  const left = c.totalBytes - c.bytes;
  const eta = bytesPerSec > 0 && done < c.total ? formatDuration((left / bytesPerSec) * 1000) : '–';
  const share = c.total ? done / c.total : 1;
  const bar = barWidth
    ? `[${'#'.repeat(Math.round(share * barWidth)).padEnd(barWidth, '.')}] `
    : `${Math.floor(share * 100)}% `;
  return (
    `${bar}${done}/${c.total} (${c.uploaded} uploaded, ${c.skipped} skipped, ${c.failed} failed) ` +
    `${formatBytes(c.bytes)}/${formatBytes(c.totalBytes)}, ${filesPerSec.toFixed(1)} files/s, ` +
    `${formatBytes(bytesPerSec)}/s, ETA ${eta}`
  );
}

export interface Progress {
  update(c: Counts): void;
  /** Draws the last state and ends the line (a terminal) or writes the last line. */
  finish(c: Counts): void;
}

export function createProgress(
  out: NodeJS.WriteStream | { isTTY?: boolean; write(s: string): unknown },
  opts: { logEveryMs?: number } = {},
): Progress {
  const started = Date.now();
  const tty = out.isTTY === true;
  const every = tty ? 100 : (opts.logEveryMs ?? 5000);
  let last = 0;
  let lastLine = '';
  const draw = (c: Counts) => {
    const line = progressLine(c, Date.now() - started, tty ? 24 : 0);
    const columns = (out as NodeJS.WriteStream).columns ?? 120;
    if (tty) out.write(`\r${line.slice(0, columns - 1)}\x1b[K`);
    else if (line !== lastLine) out.write(`${line}\n`);
    lastLine = line;
  };
  return {
    update(c) {
      const now = Date.now();
      if (now - last < every) return;
      last = now;
      draw(c);
    },
    finish(c) {
      draw(c);
      if (tty) out.write('\n');
    },
  };
}
