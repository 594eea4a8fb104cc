/**
 * Shared pieces of `npm run bench`: timing, percentiles, the result shape every
 * section returns, the printed table and the JSON written to .bench/.
 *
 * A section is a function `(opts: BenchOptions) => Promise<SectionResult>`
 * registered in scripts/bench.ts. It measures each operation of ours beside a
 * baseline measured in the same run, so ratios survive a change of machine.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';

export interface BenchOptions {
  /** Smaller data set and fewer repetitions: checks that the section works, in seconds. */
  quick: boolean;
  /** Where results-<section>.json goes (created if missing). */
  outDir: string;
  /** Leave the section's temp data directory in place (its path is printed) for a closer look. */
  keep: boolean;
  /** Progress lines while the section runs. */
  log: (line: string) => void;
  /** `--duration <seconds>` (or 10m, 1h): how long a timed section (soak) runs its load, where it has one. */
  durationS?: number;
}

/** Latencies of one operation, in milliseconds. */
export interface Stats {
  n: number;
  p50: number;
  p99: number;
  mean: number;
  min: number;
  max: number;
}

export interface Target {
  /** What the target says, e.g. "p50 < 5 ms". */
  text: string;
  pass: boolean;
}

/** One measured operation beside its baseline. */
export interface BenchRow {
  /** Stable key for comparing runs (JSON). */
  id: string;
  label: string;
  ours: Stats;
  baseline: { label: string; stats: Stats } | null;
  /** Throughput (per second) where the figure that matters is a rate. */
  rate?: { unit: string; ours: number; baseline: number | null };
  target?: Target;
  /** Sanity checks (ours and the baseline agree, the data is what it claims). */
  check?: { ok: boolean; text: string };
  note?: string;
}

export interface SectionResult {
  section: string;
  quick: boolean;
  /** The data set and anything else a reader needs to interpret the rows. */
  setup: Record<string, unknown>;
  rows: BenchRow[];
  /** EXPLAIN QUERY PLAN of the statements our code ran, by row id. */
  plans?: Record<string, Array<{ sql: string; plan: string[] }>>;
  /** Free-form findings (e.g. a target missed and why). */
  findings: string[];
  durationMs: number;
}

export function machineInfo() {
  const cpus = os.cpus();
  return {
    cpus: cpus.length,
    cpuModel: cpus[0]?.model.trim() ?? 'unknown',
    memoryGiB: Math.round((os.totalmem() / 1024 ** 3) * 10) / 10,
    platform: `${os.platform()} ${os.release()} ${os.arch()}`,
    node: process.version,
    /** 1, 5 and 15 minute load averages: other work on the machine skews the figures. */
    loadavg: os.loadavg().map((l) => Math.round(l * 100) / 100),
  };
}

export function stats(samples: number[]): Stats {
  if (samples.length === 0) return { n: 0, p50: NaN, p99: NaN, mean: NaN, min: NaN, max: NaN };
  const s = [...samples].sort((a, b) => a - b);
  // Nearest-rank percentile: with n = 200, p99 is the 198th value.
  const pct = (p: number) => s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
  return {
    n: s.length,
    p50: pct(50),
    p99: pct(99),
    mean: s.reduce((a, b) => a + b, 0) / s.length,
    min: s[0],
    max: s[s.length - 1],
  };
}

export interface MeasureOptions {
  reps: number;
  /** Unmeasured runs first (JIT, page cache, prepared statements). */
  warmup?: number;
  /** Stop early once this much time went into measured runs, keeping at least minReps (slow baselines). */
  budgetMs?: number;
  minReps?: number;
  /** Runs before each run, unmeasured (e.g. forgetting what the previous run left cached). */
  before?: (i: number) => unknown;
}

/** Runs `fn` repeatedly, one at a time, and returns the latency distribution in ms. */
export async function measure(fn: (i: number) => unknown | Promise<unknown>, o: MeasureOptions): Promise<Stats> {
  const warmup = o.warmup ?? Math.min(10, Math.ceil(o.reps / 10));
  for (let i = 0; i < warmup; i++) await fn(-1 - i);
  const samples: number[] = [];
  const started = performance.now();
  for (let i = 0; i < o.reps; i++) {
    await o.before?.(i);
    const t0 = performance.now();
    await fn(i);
    samples.push(performance.now() - t0);
    if (o.budgetMs !== undefined && i + 1 >= (o.minReps ?? 20) && performance.now() - started > o.budgetMs) break;
  }
  return stats(samples);
}

/** Runs `tasks` with at most `concurrency` in flight; returns wall time and each task's latency (ms). */
export async function runConcurrent(
  count: number,
  concurrency: number,
  task: (i: number) => Promise<void>,
): Promise<{ wallMs: number; latencies: Stats }> {
  const latencies: number[] = [];
  let next = 0;
  const t0 = performance.now();
  const worker = async () => {
    while (next < count) {
      const i = next++;
      const s = performance.now();
      await task(i);
      latencies.push(performance.now() - s);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
  return { wallMs: performance.now() - t0, latencies: stats(latencies) };
}

export const now = () => performance.now();

/** 3 significant digits, in ms (or s above 10 s). */
export function fmtMs(ms: number): string {
  if (!Number.isFinite(ms)) return '—';
  if (ms >= 10_000) return `${(ms / 1000).toFixed(1)} s`;
  if (ms >= 100) return `${ms.toFixed(0)} ms`;
  if (ms >= 10) return `${ms.toFixed(1)} ms`;
  if (ms >= 1) return `${ms.toFixed(2)} ms`;
  return `${ms.toFixed(3)} ms`;
}

function fmtRatio(r: number): string {
  if (!Number.isFinite(r)) return '—';
  if (r >= 10) return `${r.toFixed(0)}×`;
  if (r >= 0.1) return `${r.toFixed(2)}×`;
  return `${r.toPrecision(2)}×`;
}

function table(headers: string[], rows: string[][], rightAlign: Set<number>): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (rightAlign.has(i) ? c.padStart(widths[i]) : c.padEnd(widths[i]))).join(' │ ');
  const sep = widths.map((w) => '─'.repeat(w)).join('─┼─');
  return [line(headers), sep, ...rows.map(line)].join('\n');
}

/** The human-readable report of one section. */
export function formatSection(r: SectionResult): string {
  const out: string[] = [];
  out.push(`\n=== ${r.section}${r.quick ? ' (quick)' : ''} — ${fmtMs(r.durationMs)} ===`);
  const latencyRows = r.rows.map((row) => {
    const b = row.baseline?.stats;
    return [
      row.label,
      fmtMs(row.ours.p50),
      fmtMs(row.ours.p99),
      fmtMs(row.ours.min),
      String(row.ours.n),
      row.baseline ? row.baseline.label : '—',
      b ? fmtMs(b.p50) : '—',
      b ? fmtMs(b.p99) : '—',
      b ? String(b.n) : '—',
      b ? fmtRatio(row.ours.p50 / b.p50) : '—',
      row.target ? `${row.target.text}: ${row.target.pass ? 'PASS' : 'FAIL'}` : '',
      row.check ? (row.check.ok ? 'ok' : `MISMATCH: ${row.check.text}`) : '',
    ];
  });
  out.push(
    table(
      ['operation', 'p50', 'p99', 'min', 'n', 'baseline', 'base p50', 'base p99', 'n', 'ratio p50', 'target', 'check'],
      latencyRows,
      new Set([1, 2, 3, 4, 6, 7, 8, 9]),
    ),
  );
  out.push(
    'ratio = ours / baseline (below 1× means ours is faster); min = fastest run, close to the cost on an idle machine',
  );
  const rated = r.rows.filter((row) => row.rate);
  if (rated.length) {
    out.push('');
    out.push(
      table(
        ['throughput', 'ours', 'baseline', 'ratio'],
        rated.map((row) => [
          row.label,
          `${row.rate!.ours.toFixed(1)} ${row.rate!.unit}`,
          row.rate!.baseline === null ? '—' : `${row.rate!.baseline.toFixed(1)} ${row.rate!.unit}`,
          row.rate!.baseline ? fmtRatio(row.rate!.ours / row.rate!.baseline) : '—',
        ]),
        new Set([1, 2, 3]),
      ),
    );
    out.push('throughput ratio = ours / baseline (below 1× means ours is slower)');
  }
  const notes = r.rows.filter((row) => row.note).map((row) => `- ${row.label}: ${row.note}`);
  if (notes.length) out.push('', 'notes:', ...notes);
  if (r.findings.length) out.push('', 'findings:', ...r.findings.map((f) => `- ${f}`));
  // The plans SQLite chose for the statements behind each missed target, each distinct statement once.
  const shown = new Set<string>();
  const planLines: string[] = [];
  for (const row of r.rows) {
    if (!row.target || row.target.pass) continue;
    for (const s of r.plans?.[row.id] ?? []) {
      const key = `${s.sql}\n${s.plan.join('\n')}`;
      if (shown.has(key)) continue;
      shown.add(key);
      planLines.push(`  ${s.sql}`, ...s.plan.map((p) => `      ${p}`));
    }
  }
  if (planLines.length) out.push('', 'query plans behind the missed targets (EXPLAIN QUERY PLAN):', ...planLines);
  return out.join('\n');
}

/** Writes `<outDir>/results-<section>.json` and returns its path. */
export async function writeResults(outDir: string, r: SectionResult, extra: Record<string, unknown>): Promise<string> {
  await mkdir(outDir, { recursive: true });
  const file = path.join(outDir, `results-${r.section}.json`);
  await writeFile(file, JSON.stringify({ ...extra, ...r }, null, 2) + '\n');
  return file;
}
