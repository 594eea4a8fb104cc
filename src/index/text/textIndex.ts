/**
 * The text index: stemmed full-text search over what is written on or about a
 * frame (captions, OCR text) and an item (file name, description, tag values).
 * This file holds the engine-neutral shapes: the query, the hits and the
 * index itself. How free user text becomes search terms: query.ts; the score
 * normalisation used to combine text matches with vector similarity:
 * textRank.ts; what the stores tell the index as they write: writer.ts. The
 * SQLite implementation (an FTS5 table) is in sqlite/, the PostgreSQL one
 * (tsvector + GIN, kept by triggers) in postgres/.
 */

/** Where a match was found. */
export type TextField = 'caption' | 'ocr' | 'name' | 'description' | 'tag';
export const TEXT_FIELDS: readonly TextField[] = ['caption', 'ocr', 'name', 'description', 'tag'];

export interface TextSearchQuery {
  /** Free user text; any characters (quotes, operators, emoji) are safe. */
  query: string;
  /** Collections to search (the ones the caller may read). Empty: no results. */
  collectionIds: string[];
  /** Restricts to these items (e.g. what the browse filters let through); null or absent: no restriction. */
  mediaIds?: string[] | null;
  /** Most results returned. */
  limit: number;
  /**
   * Lets the last word match as a prefix too ("beac" finds "beach"), for
   * search-as-you-type; a prefix-only match counts half a term. Default true.
   */
  prefix?: boolean;
}

export interface TextHit {
  mediaId: string;
  /**
   * The frame whose captions or OCR text matched; its hit also counts what its
   * item's own text (name, description, tags) matched. null: a hit of the
   * item's own text, which stands for all its frames (an item may have both
   * kinds of hit).
   */
  frameId: string | null;
  collectionId: string;
  /** 0..1, see textRank. */
  score: number;
  /**
   * BM25 of the hit, higher is better (unlike SQLite's bm25(), which is
   * negated): Σ over matched words of idf × tf·(k1 + 1)/(tf + k1), k1 = 1.2,
   * idf = ln(1 + (N − n + 0.5)/(n + 0.5)) with N rows in the index and n rows
   * holding the word; a word matched only as a prefix counts half. No length
   * normalisation: captions, OCR lines, names and tags are all short.
   */
  bm25: number;
  /** Query terms matched (a prefix-only match counts 0.5) and the number of terms. */
  termsMatched: number;
  termsTotal: number;
  matchedFields: TextField[];
}

export interface TextIndex {
  /** Best first (score, then bm25); at most `limit` hits. */
  search(query: TextSearchQuery): Promise<TextHit[]>;
  /**
   * Reads what searches look up row by row (the index's row map, its words'
   * lists) into memory ahead of them, where that pays (a big library); the
   * rows read. Searches are answered meanwhile.
   */
  warm?(): Promise<{ rows: number }>;
}
