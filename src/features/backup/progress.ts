/** The progress of a backup or a restore: counts, bytes, rate and ETA, reported as they change. */

export type BackupPhase = 'database' | 'scanning' | 'files' | 'verifying' | 'done';

/** One report: where the work is, what is done of this phase, its rate and what is left. */
export interface ProgressReport {
  phase: BackupPhase;
  filesDone: number;
  filesTotal: number;
  bytesDone: number;
  bytesTotal: number;
  /** Bytes a second over this phase so far. */
  bytesPerSecond: number;
  /** Milliseconds left in this phase at that rate; null when unknown. */
  etaMs: number | null;
  elapsedMs: number;
}

export interface BackupProgress {
  phase(phase: BackupPhase, filesTotal: number, bytesTotal: number): void;
  advance(files: number, bytes: number): void;
  /** The report now. */
  current(): ProgressReport;
}

/** Progress reported through `report`, at most every `everyMs` (and at each phase change). */
export function createProgress(report: (p: ProgressReport) => void = () => undefined, everyMs = 1000): BackupProgress {
  const started = Date.now();
  let phaseStarted = started;
  let lastReport = 0;
  const state = { phase: 'database' as BackupPhase, filesDone: 0, filesTotal: 0, bytesDone: 0, bytesTotal: 0 };
  const current = (): ProgressReport => {
    const now = Date.now();
    const secs = Math.max((now - phaseStarted) / 1000, 0.001);
    const rate = state.bytesDone / secs;
    const left = state.bytesTotal - state.bytesDone;
    const filesLeft = state.filesTotal - state.filesDone;
    const etaMs =
      rate > 0 && state.bytesTotal > 0
        ? (left / rate) * 1000
        : state.filesDone > 0
          ? (filesLeft / (state.filesDone / secs)) * 1000
          : null;
    return { ...state, bytesPerSecond: rate, etaMs, elapsedMs: now - started };
  };
  return {
    phase(phase, filesTotal, bytesTotal) {
      // The phase that ends, as it ended (its last counts may not have been reported yet).
      if (state.filesTotal > 0) report(current());
      const filesDone = phase === 'done' ? filesTotal : 0;
      Object.assign(state, { phase, filesTotal, bytesTotal, filesDone, bytesDone: 0 });
      phaseStarted = Date.now();
      lastReport = Date.now();
      report(current());
    },
    advance(files, bytes) {
      state.filesDone += files;
      state.bytesDone += bytes;
      if (Date.now() - lastReport >= everyMs) {
        lastReport = Date.now();
        report(current());
      }
    },
    current,
  };
}
