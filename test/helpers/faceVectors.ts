/**
 * Synthetic face vectors for the clustering tests: random unit vectors as identities, and faces of an
 * identity at a chosen cosine to it.
 */
import { unit } from '../../src/index/faces/vectorMath.js';

export function gauss(r: () => number): number {
  return Math.sqrt(-2 * Math.log(Math.max(r(), 1e-12))) * Math.cos(2 * Math.PI * r());
}
export const D = 128;
export function randomUnit(r: () => number, d = D): Float32Array {
  const v = new Float32Array(d);
  for (let i = 0; i < d; i++) v[i] = gauss(r);
  return unit(v);
}
/** A face of identity `u`: cosine ≈ `c` with u (so two faces of one identity ≈ c²; of two random identities ≈ 0 ± 0.09). */
export function faceOf(u: Float32Array, c: number, r: () => number): Float32Array {
  const w = randomUnit(r, u.length);
  const s = Math.sqrt(1 - c * c);
  const v = new Float32Array(u.length);
  for (let i = 0; i < u.length; i++) v[i] = c * u[i] + s * w[i];
  return unit(v);
}
export function shuffle<T>(a: T[], r: () => number): T[] {
  const out = [...a];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(r() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}
export const dotp = (a: ArrayLike<number>, b: ArrayLike<number>) => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
};
