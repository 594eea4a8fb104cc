/**
 * Coarse lists (IVF) for big collections: the engine-independent pieces.
 *
 * A collection's vectors (per similarity model) past IVF_MIN_ROWS are split at
 * rebuild into listsFor(rows) lists by spherical k-means on a sample: each
 * vector goes to the list whose centroid it is most similar to (cosine; the
 * centroids are unit vectors). A query ranks the lists by the similarity of
 * their centroids to it and scans only the nearest ones (probe policy below),
 * so the bit first pass reads a few percent of the collection instead of all
 * of it. The neighbours of a query sit, nearly always, in the lists whose
 * centroids are nearest to it; recall against the exact answer is measured
 * (npm run bench -- search) rather than assumed.
 *
 * Measured (npm run bench -- search, this 2-core machine under other load, k = 10,
 * clustered 768-d set, the same run for every figure of a row):
 *   1M:   nearest lists (15.8 of 125, 129k of 1M codes) p50 40 ms, recall@10 0.970;
 *         every list (the first pass before IVF) p50 130 ms, recall 1.000;
 *         exact float scan 3.7 s. With 1/16 of the codes (8 lists) in an
 *         earlier run: p50 32 ms vs 101 ms every list, recall 0.940.
 *   100k: nearest lists (7.2 of 40, 18k codes) p50 20 ms vs 27 ms every list,
 *         recall 1.000 both: below ~100k the fixed costs (candidate re-rank,
 *         the bounded KNN's selection of 1,024 candidates) dominate.
 * A query costs ~0.25 ms a vec0 statement (two a list: the sample bound and
 * the KNN) plus ~90 ns a code scanned; training a 1M collection's 125 lists
 * (k-means on 8k vectors) and assigning 1M vectors (~0.1 ms each: 125 dot
 * products) put rebuild() at ~3.3k vectors/s.
 */
import { setImmediate as turn } from 'node:timers/promises';
import { seededRandom } from '../../random.js';

/**
 * A collection (per similarity model) gets coarse lists at rebuild from this
 * many vectors. Below it the full bit scan is cheap (50k codes: ~3–5 ms on this
 * loaded 2-core machine) and one list keeps small collections as they were;
 * at 100k it is ~10 ms, a large part of the 20 ms the search request may take.
 */
export const IVF_MIN_ROWS = 50_000;

/**
 * A collection whose vectors grew past this factor of the rows its lists were
 * trained on is worth a rebuild (its lists have grown too long).
 */
export const IVF_RETRAIN_FACTOR = 4;

/**
 * Lists for a collection of `rows` vectors: √rows / 8, 8..256 (100k: 40 lists
 * of 2,500; 1M: 125 lists of 8,000). Fewer, longer lists than the usual IVF
 * rule (4–16 √rows) because each list scanned is one vec0 statement (~50 µs of
 * overhead) and the bit scan of a list is cheap (~50 ns a row).
 */
export function listsFor(rows: number): number {
  return Math.max(8, Math.min(256, Math.round(Math.sqrt(rows) / 8)));
}

/** Vectors k-means trains on: 64 per list, 8k..16k (k-means costs sample × lists × dims per iteration). */
export const sampleFor = (lists: number): number => Math.max(8_192, Math.min(16_384, lists * 64));

/**
 * The probe policy: a query scans the nearest lists (by centroid similarity)
 * until they hold at least max(rows × PROBE_FRACTION, want × PROBE_PER_CANDIDATE,
 * PROBE_MIN_ROWS) vectors, and at least PROBE_MIN_LISTS lists. At 1M rows and
 * k = 10 that is ~125k rows (~16 lists of 125); at 100k, 32k rows (~13 of 40).
 * Measured on the clustered 1M bench set (npm run bench -- search; lists
 * probed → recall@10 against the exact answer, 30 queries): 1: 0.877,
 * 2: 0.890, 4: 0.917, 8: 0.940, 16: 0.970; every list: 1.000. The misses
 * are neighbours in lists not probed (more candidates do not help: 2,048
 * gave the same 0.940 at 8 lists), so the fraction of the collection read is
 * what buys recall: 1/16 (8 lists) missed the 0.95 target, 1/8 meets it.
 * At 100k rows in 1,000 smaller clusters (the search-api bench set: 100
 * vectors a cluster), 16k rows (7 of 40 lists) gave recall@10 0.92–0.94,
 * 24k (10 lists) 0.957, 35k (14 lists) 0.980, at about the same time (the
 * fixed costs dominate there): hence the 32k floor.
 */
export const PROBE_FRACTION = 1 / 8;
export const PROBE_PER_CANDIDATE = 16;
export const PROBE_MIN_ROWS = 32_768;
export const PROBE_MIN_LISTS = 4;

export interface ProbePolicy {
  fraction: number;
  perCandidate: number;
  minRows: number;
}
export const PROBE_POLICY: ProbePolicy = {
  fraction: PROBE_FRACTION,
  perCandidate: PROBE_PER_CANDIDATE,
  minRows: PROBE_MIN_ROWS,
};

/** Rows the probed lists of a collection of `rows` must hold for `want` first-pass candidates. */
export function probeRowsFor(rows: number, want: number, p: ProbePolicy = PROBE_POLICY): number {
  return Math.min(rows, Math.ceil(Math.max(rows * p.fraction, want * p.perCandidate, p.minRows)));
}

/**
 * What the lists are trained on and assigned by: the unit vector minus the
 * model's mean (the quantiser's centre), normalised again. Real embeddings
 * share a common direction, and on raw vectors a list whose centroid is that
 * direction is the most similar list for nearly everyone: trained on raw
 * vectors the clustered 1M bench set got lists of ~50k rows beside lists of a
 * few hundred (a query then read 205k rows in 4 lists, recall@10 0.93).
 */
export function residual(unit: Float32Array, center: Float32Array | null): Float32Array {
  const out = new Float32Array(unit.length);
  let s = 0;
  for (let i = 0; i < unit.length; i++) {
    const x = unit[i] - (center ? center[i] : 0);
    out[i] = x;
    s += x * x;
  }
  if (s === 0) return out;
  const inv = 1 / Math.sqrt(s);
  for (let i = 0; i < out.length; i++) out[i] *= inv;
  return out;
}

/** Dot product of v with row `j` of a row-major matrix of `d` columns. */
function dotRow(m: Float32Array, j: number, d: number, v: Float32Array): number {
  const off = j * d;
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  let i = 0;
  for (; i + 3 < d; i += 4) {
    s0 += m[off + i] * v[i];
    s1 += m[off + i + 1] * v[i + 1];
    s2 += m[off + i + 2] * v[i + 2];
    s3 += m[off + i + 3] * v[i + 3];
  }
  for (; i < d; i++) s0 += m[off + i] * v[i];
  return s0 + s1 + s2 + s3;
}

/** The list whose centroid is most similar to v, a residual() (ties: the lower list). */
export function nearestList(centroids: Float32Array, lists: number, v: Float32Array): number {
  const d = v.length;
  let best = 0;
  let bestS = -Infinity;
  for (let j = 0; j < lists; j++) {
    const s = dotRow(centroids, j, d, v);
    if (s > bestS) {
      bestS = s;
      best = j;
    }
  }
  return best;
}

/** The lists, most similar centroid to v (a residual()) first. */
export function rankLists(centroids: Float32Array, lists: number, v: Float32Array): number[] {
  const d = v.length;
  const s = new Float64Array(lists);
  for (let j = 0; j < lists; j++) s[j] = dotRow(centroids, j, d, v);
  return Array.from({ length: lists }, (_, j) => j).sort((a, b) => s[b] - s[a] || a - b);
}

function normalizeRow(m: Float32Array, j: number, d: number): void {
  let s = 0;
  for (let i = 0; i < d; i++) s += m[j * d + i] * m[j * d + i];
  if (s === 0) return;
  const inv = 1 / Math.sqrt(s);
  for (let i = 0; i < d; i++) m[j * d + i] *= inv;
}

export interface TrainOptions {
  iterations?: number;
  seed?: number;
  /** Points between event-loop turns (training a 1M collection's lists takes seconds). */
  yieldEvery?: number;
}

/**
 * Spherical k-means on unit vectors: k-means++ seeding (by 1 − cosine), then
 * Lloyd iterations (assign by the most similar centroid, centroid = the
 * normalised mean) until under 0.2% of the points move. An emptied list is
 * re-seeded with the point least similar to its centroid. Deterministic for a
 * seed and sample. Returns `lists` × dims centroids, row-major, unit length.
 */
export async function trainLists(sample: Float32Array[], lists: number, o: TrainOptions = {}): Promise<Float32Array> {
  const n = sample.length;
  if (n === 0) throw new Error('trainLists: empty sample');
  const d = sample[0].length;
  const C = Math.min(lists, n);
  const r = seededRandom(o.seed ?? 0x1f1f);
  const every = o.yieldEvery ?? 2_048;
  let sinceTurn = 0;
  const tick = async (points: number) => {
    sinceTurn += points;
    if (sinceTurn >= every) {
      sinceTurn = 0;
      await turn();
    }
  };
  const cent = new Float32Array(lists * d);
  // k-means++: each next centroid drawn with probability ∝ distance to the nearest chosen one.
  const far = new Float64Array(n).fill(Infinity);
  let pick = Math.floor(r() * n);
  for (let j = 0; j < C; j++) {
    cent.set(sample[pick], j * d);
    let total = 0;
    for (let p = 0; p < n; p++) {
      const dist = Math.max(0, 1 - dotRow(cent, j, d, sample[p]));
      if (dist < far[p]) far[p] = dist;
      total += far[p];
    }
    await tick(n / 8);
    if (total <= 0) {
      pick = Math.floor(r() * n);
      continue;
    }
    let x = r() * total;
    pick = n - 1;
    for (let p = 0; p < n; p++) {
      x -= far[p];
      if (x <= 0) {
        pick = p;
        break;
      }
    }
  }
  // Fewer points than lists: the extra lists copy the first centroids (they stay empty: nearestList picks the lower).
  for (let j = C; j < lists; j++) cent.copyWithin(j * d, (j % C) * d, (j % C) * d + d);

  const assign = new Int32Array(n).fill(-1);
  const sims = new Float64Array(n);
  for (let it = 0; it < (o.iterations ?? 10); it++) {
    let moved = 0;
    for (let p = 0; p < n; p++) {
      let best = 0;
      let bestS = -Infinity;
      for (let j = 0; j < C; j++) {
        const s = dotRow(cent, j, d, sample[p]);
        if (s > bestS) {
          bestS = s;
          best = j;
        }
      }
      if (assign[p] !== best) moved++;
      assign[p] = best;
      sims[p] = bestS;
      await tick(1);
    }
    if (it > 0 && moved <= n * 0.002) break;
    const sum = new Float64Array(C * d);
    const count = new Int32Array(C);
    for (let p = 0; p < n; p++) {
      const j = assign[p];
      count[j]++;
      const v = sample[p];
      for (let i = 0; i < d; i++) sum[j * d + i] += v[i];
    }
    for (let j = 0; j < C; j++) {
      if (count[j] === 0) {
        // Re-seed an empty list with the worst-served point.
        let worst = 0;
        for (let p = 1; p < n; p++) if (sims[p] < sims[worst]) worst = p;
        cent.set(sample[worst], j * d);
        sims[worst] = Infinity;
        continue;
      }
      for (let i = 0; i < d; i++) cent[j * d + i] = sum[j * d + i];
      normalizeRow(cent, j, d);
    }
  }
  return cent;
}
