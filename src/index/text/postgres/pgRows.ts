import type { PgRunner } from '../../../platform/pgDb.js';
import type { PgTerm } from './pgTerms.js';

/**
 * Terms whose row count is summed from several words' counts (a word's forms, a prefix's words) are counted
 * exactly, with the GIN index, up to this many (a row holding two of the words is one row); above it, the sum
 * stands as the estimate (SQLite estimates above its own budget too).
 */
export const EXACT_DF_LIMIT = 20_000;

/** Rows in the index, and per term the rows holding it (text_index_words plus its deltas, migration 050). */
export async function documentFrequencies(db: PgRunner, terms: PgTerm[]): Promise<{ rows: number; df: number[] }> {
  const spec = terms.map((t, i) => ({ i, exact: [...t.exact], prefix: t.prefix }));
  // Per word list: its counted rows plus their deltas. Prefix words: the btree range [prefix, prefix + U+10FFFF)
  // of the "C"-collated words, those already counted as exact left out.
  const summed = (table: string, column: string) => `
    coalesce((SELECT sum(${column}) FROM ${table} w WHERE w.word = ANY(t.exact::text[] COLLATE "C")), 0)
    + coalesce((SELECT sum(${column}) FROM ${table} w
                WHERE t.prefix IS NOT NULL AND w.word >= t.prefix COLLATE "C"
                  AND w.word < (t.prefix || chr(1114111)) COLLATE "C" AND NOT w.word = ANY(t.exact::text[] COLLATE "C")), 0)`;
  const rows = await db.many<{ i: number; n: number }>(
    `SELECT t.i, (${summed('text_index_words', 'rows')} + ${summed('text_index_word_deltas', 'delta')})::float8 AS n
     FROM jsonb_to_recordset($1::jsonb) AS t(i int, exact text[], prefix text)
     UNION ALL
     SELECT -1, (coalesce((SELECT sum(rows) FROM text_index_words WHERE word = ''), 0)
               + coalesce((SELECT sum(delta) FROM text_index_word_deltas WHERE word = ''), 0))::float8`,
    [JSON.stringify(spec)],
  );
  const df = terms.map(() => 0);
  let total = 0;
  for (const r of rows)
    if (r.i < 0) total = r.n;
    else df[r.i] = r.n;
  const recount = terms
    .map((t, i) => ({ i, q: t.expr, summed: t.exact.size > 1 || t.prefix !== null }))
    .filter((t) => t.summed && df[t.i] > 0 && df[t.i] <= EXACT_DF_LIMIT);
  if (recount.length) {
    const exact = await db.many<{ i: number; n: number }>(
      `SELECT t.i, (SELECT count(*) FROM text_index_docs d WHERE d.terms @@ t.q::tsquery)::float8 AS n
       FROM jsonb_to_recordset($1::jsonb) AS t(i int, q text)`,
      [JSON.stringify(recount.map(({ i, q }) => ({ i, q })))],
    );
    for (const r of exact) df[r.i] = r.n;
  }
  return { rows: total, df };
}

/** A row holding some query word, with one of the terms it holds: the occurrences and where they are. */
export interface MatchRow {
  id: number;
  kind: 'caption' | 'ocr' | 'item' | 'tag';
  media_id: string;
  frame_id: string | null;
  collection_id: string;
  lexeme: string;
  /** Occurrences of the term in the row. */
  tf: number;
  /** Weights of its positions: in an item's row A is the name, B the description. */
  weights: string[];
}

/**
 * Every row of these collections (and items, when listed) holding a query word, one result row per term of
 * the query it holds (the GIN index finds the rows; unnest reads their terms).
 */
export async function matchingRows(
  db: PgRunner,
  terms: PgTerm[],
  collectionIds: string[],
  mediaIds: string[] | null,
): Promise<MatchRow[]> {
  const exact = [...new Set(terms.flatMap((t) => [...t.exact]))];
  const prefixes = terms.flatMap((t) => (t.prefix === null ? [] : [t.prefix]));
  return db.many<MatchRow>(
    `SELECT d.id, d.kind, d.media_id, d.frame_id, d.collection_id, l.lexeme,
            cardinality(l.positions) AS tf, l.weights::text[] AS weights
     FROM text_index_docs d CROSS JOIN LATERAL unnest(d.terms) l
     WHERE d.terms @@ $1::tsquery AND d.collection_id = ANY($2::text[])
       AND ($3::text[] IS NULL OR d.media_id = ANY($3::text[]))
       AND (l.lexeme = ANY($4::text[]) OR EXISTS (SELECT 1 FROM unnest($5::text[]) p WHERE starts_with(l.lexeme, p)))`,
    [terms.map((t) => `(${t.expr})`).join(' | '), collectionIds, mediaIds, exact, prefixes],
  );
}
