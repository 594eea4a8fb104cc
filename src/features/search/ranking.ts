/**
 * How search scores are made, in one place.
 *
 * Two signals, each mapped to 0..1:
 * - embedding rank: the cosine similarity between the query's embedding and
 *   an object's (or frame's) embedding, calibrated per model (the catalog
 *   declares each model's calibrations: models/catalog.json) so that `lo`
 *   (what unrelated pairs typically reach) maps to 0 and `hi` (what a clear
 *   match reaches) maps to 1, linearly in between and clamped;
 * - text rank: FTS5 bm25 over captions, OCR text, names, descriptions and
 *   tags, already 0..1 from src/search/textIndex.ts (terms matched × a
 *   saturating bm25 term).
 * They combine like independent evidence: total = 1 − (1 − text)(1 − embedding).
 * Either signal alone can find a result (a word painted on a sign, a file
 * name), both together rank higher, and the total stays in 0..1. With these
 * calibrations 0.05 (the spec's default minScore) means "barely related" and
 * scores near 1 mean "this is it".
 */

import type { Calibration } from '../../models/catalog.js';

/** A similarity mapped to 0..1 by a model's calibration. */
export function calibrate(similarity: number, c: Calibration): number {
  if (!Number.isFinite(similarity)) return 0;
  return Math.min(1, Math.max(0, (similarity - c.lo) / (c.hi - c.lo)));
}

/** Independent-evidence combination of the two ranks, in 0..1. */
export function combine(textRank: number, embeddingRank: number): number {
  return 1 - (1 - textRank) * (1 - embeddingRank);
}

const round4 = (x: number) => Math.round(x * 10_000) / 10_000;
export { round4 };
