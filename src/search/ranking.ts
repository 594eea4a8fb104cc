/**
 * How search scores are made, in one place.
 *
 * Two signals, each mapped to 0..1:
 * - embedding rank: the cosine similarity between the query's embedding and
 *   an object's (or frame's) embedding, calibrated per model family so that
 *   `lo` (what unrelated pairs typically reach) maps to 0 and `hi` (what a
 *   clear match reaches) maps to 1, linearly in between and clamped;
 * - text rank: FTS5 bm25 over captions, OCR text, names, descriptions and
 *   tags, already 0..1 from src/search/textIndex.ts (terms matched × a
 *   saturating bm25 term).
 * They combine like independent evidence: total = 1 − (1 − text)(1 − embedding).
 * Either signal alone can find a result (a word painted on a sign, a file
 * name), both together rank higher, and the total stays in 0..1. With these
 * calibrations 0.05 (the spec's default minScore) means "barely related" and
 * scores near 1 mean "this is it".
 */

export interface Calibration {
  /** Similarity of unrelated pairs: maps to 0. */
  lo: number;
  /** Similarity of a clear match: maps to 1. */
  hi: number;
}

/**
 * Text-to-image calibrations. CLIP ViT (B/32, L/14): matching captions score
 * ~0.28–0.35, unrelated ones ~0.12–0.2. SigLIP: its sigmoid(117·cos − 12.9)
 * crosses 0.5 at cos ≈ 0.11; unrelated pairs sit near 0. The stand-ins map
 * colours to near-orthogonal directions: ~1 for the colour named, ~0 otherwise.
 */
export const TEXT_TO_IMAGE: Record<string, Calibration> = {
  clip: { lo: 0.15, hi: 0.32 },
  siglip: { lo: 0.0, hi: 0.16 },
  standin: { lo: 0.05, hi: 0.85 },
};

/**
 * Image-to-image (similarToObjectId). Embeddings of unrelated photos are
 * already fairly similar in CLIP-like spaces (~0.4–0.6); near-duplicates reach
 * 0.95+. Face embeddings (SFace): different people ~0.0–0.3, the same person
 * ~0.4–0.8 without alignment.
 */
export const IMAGE_TO_IMAGE: Record<string, Calibration> = {
  clip: { lo: 0.55, hi: 0.95 },
  siglip: { lo: 0.55, hi: 0.95 },
  faces: { lo: 0.25, hi: 0.75 },
  standin: { lo: 0.5, hi: 1.0 },
  'faces-standin': { lo: 0.6, hi: 1.0 },
};

export function calibrate(similarity: number, c: Calibration): number {
  if (!Number.isFinite(similarity)) return 0;
  return Math.min(1, Math.max(0, (similarity - c.lo) / (c.hi - c.lo)));
}

/** Independent-evidence combination of the two ranks, in 0..1. */
export function combine(textRank: number, embeddingRank: number): number {
  return 1 - (1 - textRank) * (1 - embeddingRank);
}

/** The calibration family of a model: 'standin' in the test profile, else its architecture. */
export function familyOf(info: { arch: string; standin: boolean }): string {
  return info.standin ? 'standin' : info.arch === 'siglip' ? 'siglip' : 'clip';
}

const round4 = (x: number) => Math.round(x * 10_000) / 10_000;
export { round4 };
