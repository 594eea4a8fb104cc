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
 * The figures behind the numbers below (recall and time per probe width,
 * rebuild speed) are in docs/measurements/vector-index.md.
 */
import { setImmediate as turn } from 'node:timers/promises';
import { seededRandom } from '../../platform/random.js';
import { dotRow, normalizeRow } from './math.js';

/**
 * A collection (per similarity model) gets coarse lists at rebuild from this
 * many vectors. Below it the full bit scan is cheap and one list keeps small
 * collections as they were; past it the scan becomes a large part of the time
 * a search request may take.
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
 * rule (4–16 √rows) because each list scanned is one vec0 statement (a fixed
 * overhead) while the bit scan of a list's rows is cheap.
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
 * The misses of a probe are neighbours in lists not probed (more candidates
 * do not help), so the fraction of the collection read is what buys recall:
 * 1/8 meets the 0.95 recall@10 target on the clustered bench set where 1/16
 * misses it, and the row floor keeps recall up in collections of many small
 * clusters.
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
 * vectors the lists come out badly unbalanced (a few huge ones beside tiny
 * ones), and a query reads far more rows for worse recall.
 */
export function residual(unit: Float32Array, center: Float32Array | null): Float32Array {
  const out = new Float32Array(unit.length);
  for (let i = 0; i < unit.length; i++) out[i] = unit[i] - (center ? center[i] : 0);
  normalizeRow(out, 0, out.length);
  return out;
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
  const tick = yielder(o.yieldEvery ?? 2_048);
  const cent = new Float32Array(lists * d);
  await seedCentroids(sample, cent, C, r, tick);
  // Fewer points than lists: the extra lists copy the first centroids (they stay empty: nearestList picks the lower).
  for (let j = C; j < lists; j++) cent.copyWithin(j * d, (j % C) * d, (j % C) * d + d);

  const assign = new Int32Array(n).fill(-1);
  const sims = new Float64Array(n);
  for (let it = 0; it < (o.iterations ?? 10); it++) {
    const moved = await assignPoints(sample, cent, C, assign, sims, tick);
    if (it > 0 && moved <= n * 0.002) break;
    moveCentroids(sample, cent, C, assign, sims);
  }
  return cent;
}

/** Counts points done and lets the event loop turn every `every` of them. */
function yielder(every: number): (points: number) => Promise<void> {
  let sinceTurn = 0;
  return async (points) => {
    sinceTurn += points;
    if (sinceTurn >= every) {
      sinceTurn = 0;
      await turn();
    }
  };
}

/** k-means++: the first C centroids, each next one drawn with probability ∝ distance to the nearest chosen one. */
async function seedCentroids(
  sample: Float32Array[],
  cent: Float32Array,
  C: number,
  r: () => number,
  tick: (points: number) => Promise<void>,
): Promise<void> {
  const n = sample.length;
  const d = sample[0].length;
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
}

/** Lloyd's assignment step: each point to its most similar centroid (its similarity in `sims`); returns how many moved. */
async function assignPoints(
  sample: Float32Array[],
  cent: Float32Array,
  C: number,
  assign: Int32Array,
  sims: Float64Array,
  tick: (points: number) => Promise<void>,
): Promise<number> {
  const d = sample[0].length;
  let moved = 0;
  for (let p = 0; p < sample.length; p++) {
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
  return moved;
}

/** Lloyd's update step: each centroid the normalised mean of its points; an emptied list re-seeded with the worst-served point. */
function moveCentroids(sample: Float32Array[], cent: Float32Array, C: number, assign: Int32Array, sims: Float64Array) {
  const n = sample.length;
  const d = sample[0].length;
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
