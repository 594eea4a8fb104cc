import type { PgDb } from '../../../platform/pgDb.js';
import { parseQuery } from '../query.js';
import { bestHits, scorer } from '../sqlite/ranking.js';
import { groupUnits, unitHits, type Units } from '../sqlite/units.js';
import type { TextField, TextIndex, TextSearchQuery, TextHit } from '../textIndex.js';
import { documentFrequencies, matchingRows, type MatchRow } from './pgRows.js';
import { PgStemmer, pgTerms, type PgTerm } from './pgTerms.js';

/**
 * The text index on PostgreSQL (tsvector + GIN; tables, terms and the triggers that keep them in step:
 * src/storage/postgres/migrations/050_text_index.sql, 051_text_index_triggers.sql), with the SQLite index's
 * query language (query.ts) and score calibration (textRank.ts): the same query finds the same hits in the
 * same order with the same scores on both engines.
 *
 * A search: the query words as index terms (stemmed by the database, cached); rows in the index and rows
 * holding each word (idf) from the word counts the triggers keep; every row of the collections holding a
 * word, with its occurrences of each (GIN, then the row's tsvector); then, as SQLite does, rows grouped into
 * frames (captions, OCR; a frame also counts its item's own text) and items (name, description, tags), BM25
 * per hit (no length normalisation), textRank, best first. No ts_rank: it has no idf.
 */
export function pgTextIndex(db: PgDb): TextIndex {
  const stemmer = new PgStemmer();
  return {
    async search(q: TextSearchQuery): Promise<TextHit[]> {
      const limit = Math.floor(q.limit);
      const collectionIds = [...new Set(q.collectionIds)];
      const mediaIds = q.mediaIds ? [...new Set(q.mediaIds)] : null;
      if (!(limit > 0) || collectionIds.length === 0 || (mediaIds && mediaIds.length === 0)) return [];
      const words = parseQuery(q.query, { prefix: q.prefix });
      if (words.length === 0) return [];
      const terms = await pgTerms(db, stemmer, words);
      if (terms.length === 0) return [];
      const [counts, rows] = await Promise.all([
        documentFrequencies(db, terms),
        matchingRows(db, terms, collectionIds, mediaIds),
      ]);
      if (rows.length === 0) return [];
      const total = Math.max(1, counts.rows);
      terms.forEach((t, i) => (t.df = Math.min(Math.max(0, counts.df[i]), total)));
      const units = unitsOf(rows, terms);
      return bestHits(unitHits(units, terms, scorer(terms, total)), collectionIds, limit);
    },
  };
}

/** Where a row's term was found. */
function fieldsOf(r: MatchRow): TextField[] {
  if (r.kind !== 'item') return [r.kind];
  const out: TextField[] = [];
  if (r.weights.includes('A')) out.push('name');
  if (r.weights.includes('B')) out.push('description');
  return out;
}

/** The frames and items of the rows found, with what each holds of each query word (as SQLite counts it). */
function unitsOf(rows: MatchRow[], terms: PgTerm[]): Units {
  const docs = new Map<number, MatchRow>();
  for (const r of rows) docs.set(r.id, r);
  const units = groupUnits([...docs.values()], terms);
  for (const r of rows) {
    const unit = r.frame_id === null ? units.items.get(r.media_id)! : units.frames.get(r.frame_id)!;
    let found = false;
    terms.forEach((t, i) => {
      if (t.exact.has(r.lexeme)) unit.tf[i] += r.tf;
      else if (t.prefix !== null && r.lexeme.startsWith(t.prefix)) unit.prefixTf[i] += r.tf;
      else return;
      found = true;
    });
    if (found) for (const f of fieldsOf(r)) unit.fields.add(f);
  }
  for (const r of docs.values()) units.items.get(r.media_id)!.collectionId = r.collection_id;
  return units;
}
