/** Synthetic embeddings for the vector index tests (seeded: every run builds the same vectors). */
import { normalize } from '../../src/index/vector/math.js';
import { seededRandom } from '../../src/platform/random.js';

export const rng = seededRandom;
export const gauss = (r: () => number) => Math.sqrt(-2 * Math.log(Math.max(r(), 1e-12))) * Math.cos(2 * Math.PI * r());
export const randomUnit = (r: () => number, d: number) => normalize(Float32Array.from({ length: d }, () => gauss(r)));

/**
 * Clustered like real embeddings: a common direction every vector shares (real
 * image embeddings sit in a narrow cone), cluster centres, and noise of the same
 * norm; queries come from the same distribution. Cosine ≈ 0.67 within a
 * cluster and 0.33 between: the nearest neighbours differ by noise only, and a
 * sign quantiser that ignores the mean wastes its bits on the common direction.
 */
export function clustered(r: () => number, d: number, clusters: number) {
  const common = randomUnit(r, d);
  const centres = Array.from({ length: clusters }, () => randomUnit(r, d));
  return () => {
    const c = centres[Math.floor(r() * clusters)];
    const v = new Float32Array(d);
    for (let i = 0; i < d; i++) v[i] = common[i] + c[i] + gauss(r) / Math.sqrt(d);
    return normalize(v);
  };
}

export const dot = (a: Float32Array, b: Float32Array) => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
};
