import type { QueryTerm } from '../query.js';
import { quote, WORD_COLUMNS } from './schema.js';
import type { TextSearchState } from './state.js';

/** A query word as the index sees it. */
export interface Term {
  /** Index terms of the word and its other forms (bus, buses: "bu", "buse"). */
  exact: Set<string>;
  /** Index-term prefix when the word may also match as a prefix. */
  prefix: string | null;
  /** FTS5 expression matching any of them. */
  expr: string;
  /** Rows holding it (estimated above RANKED_MATCHES; NaN until known). */
  df: number;
}

/** Rows matching an expression: counted up to RANKED_MATCHES, estimated above from how dense the newest matches are. */
export function documentFrequency(state: TextSearchState, expr: string, rows: number): number {
  const { sql, wordCounts, tuning } = state;
  const cached = wordCounts.get(expr);
  if (cached !== null) return Math.min(cached, rows);
  const r = sql.dfCount.get(`${WORD_COLUMNS} : ${expr}`, tuning.rankedMatches + 1) as { n: number; low: number | null };
  let df = r.n;
  if (r.n > tuning.rankedMatches && r.low !== null) {
    const span = sql.rowidSpan.get() as { lo: number; hi: number };
    df = Math.round((r.n * (span.hi - span.lo + 1)) / Math.max(1, span.hi - r.low + 1));
  }
  wordCounts.set(expr, df, r.n <= tuning.rankedMatches);
  return Math.min(df, rows);
}

/** The query words as index terms; df as cached (NaN when not: the search fills it in). */
export function toTerms(state: TextSearchState, words: QueryTerm[]): Term[] {
  const out: Term[] = [];
  for (const word of words) {
    const stems = state.stemmer.terms(word.forms);
    // The word must be one index term (a word the tokenizer drops or splits is skipped); other forms likewise.
    if (stems[0].length !== 1) continue;
    const exact = new Set<string>();
    const parts: string[] = [];
    const prefix = word.prefix ? stems[0][0] : null;
    word.forms.forEach((form, i) => {
      if (stems[i].length === 1 && !exact.has(stems[i][0])) {
        exact.add(stems[i][0]);
        // A form the prefix covers is left to it (FTS5 stems a prefix as a word: "beaches"* is beach*): an
        // OR of the word's own list with the prefix's costs FTS5 a merge of both.
        if (prefix === null || !stems[i][0].startsWith(prefix)) parts.push(quote(form));
      }
    });
    if (prefix !== null) parts.push(`${quote(word.text)}*`);
    const expr = parts.length === 1 ? parts[0] : `(${parts.join(' OR ')})`;
    out.push({ exact, prefix, expr, df: state.wordCounts.get(expr) ?? NaN });
  }
  return out;
}
