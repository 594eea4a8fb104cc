import { STATS_TTL_MS } from './tuning.js';

/** Rows matching each FTS5 word expression, counted (exact) or estimated, each kept STATS_TTL_MS. */
export class WordCounts {
  private readonly counts = new Map<string, { df: number; exact: boolean; at: number }>();

  /** A word's cached row count (exact or estimated); with `exact`, only a counted one. */
  get(expr: string, exact = false): number | null {
    const cached = this.counts.get(expr);
    return cached && Date.now() - cached.at < STATS_TTL_MS && (cached.exact || !exact) ? cached.df : null;
  }

  set(expr: string, df: number, exact: boolean): void {
    if (this.counts.size > 10_000) this.counts.clear();
    this.counts.set(expr, { df, exact, at: Date.now() });
  }
}
