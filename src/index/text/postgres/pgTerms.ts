import type { PgRunner } from '../../../platform/pgDb.js';
import type { QueryTerm } from '../query.js';
import type { Term } from '../sqlite/terms.js';

/**
 * A query word as the PostgreSQL index sees it: SQLite's Term (the same scoring code reads both), its `expr`
 * a tsquery matching the word's terms and, for the last word still typed, the terms it begins.
 */
export type PgTerm = Term;

/**
 * The index terms of words, from the database's own `text_index_terms` (migration 050: the same folding,
 * splitting and stemming as the rows were indexed with), cached: a word's terms never change.
 */
export class PgStemmer {
  private cache = new Map<string, string[]>();

  constructor(private readonly maxCached = 100_000) {}

  async terms(db: PgRunner, words: string[]): Promise<string[][]> {
    const missing = [...new Set(words.filter((w) => !this.cache.has(w)))];
    if (missing.length) {
      const rows = await db.many<{ n: number; terms: string[] }>(
        `SELECT n::int AS n, text_index_terms(w) AS terms FROM unnest($1::text[]) WITH ORDINALITY u(w, n)`,
        [missing],
      );
      if (this.cache.size + missing.length > this.maxCached) this.cache.clear();
      for (const r of rows) this.cache.set(missing[r.n - 1], r.terms);
    }
    return words.map((w) => this.cache.get(w) ?? []);
  }
}

/** A term as a tsquery lexeme (quoted: never an operator, whatever it holds). */
export const lexeme = (term: string): string => `'${term.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;

/**
 * The query words as index terms (as SQLite's toTerms: a word that is not exactly one term is skipped, and so
 * is each such form), df unknown (NaN) until counted.
 */
export async function pgTerms(db: PgRunner, stemmer: PgStemmer, words: QueryTerm[]): Promise<PgTerm[]> {
  const forms = words.flatMap((w) => w.forms);
  const stems = await stemmer.terms(db, forms);
  const out: PgTerm[] = [];
  let at = 0;
  for (const word of words) {
    const mine = stems.slice(at, (at += word.forms.length));
    if (mine[0].length !== 1) continue;
    const exact = new Set(mine.filter((s) => s.length === 1).map((s) => s[0]));
    const prefix = word.prefix ? mine[0][0] : null;
    const parts = [...exact].map(lexeme);
    if (prefix !== null) parts.push(`${lexeme(prefix)}:*`);
    out.push({ exact, prefix, expr: parts.join(' | '), df: NaN });
  }
  return out;
}
