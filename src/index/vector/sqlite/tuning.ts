/**
 * The SQLite vector index's tuning (VectorIndexTuning, with its defaults) and
 * the layout constants its modules share. The figures behind the defaults are
 * in docs/measurements/vector-index.md.
 */
import { IVF_MIN_ROWS, PROBE_MIN_LISTS, PROBE_POLICY, type ProbePolicy } from '../ivf.js';

/** vec0's default chunk size (rows per chunk). */
export const CHUNK_SIZE = 1024;
/** 1 row in 2^SAMPLE_BITS goes to the sample table too. */
const SAMPLE_BITS = 6;
export const SAMPLE_RATE = 1 << SAMPLE_BITS;
/** Whether a row is in the sample table (a hash of its rowid, so the sample is spread evenly). */
export const inSample = (rowid: number): boolean => Math.imul(rowid, 0x9e3779b1) >>> (32 - SAMPLE_BITS) === 0;
/** Ids per json_each() parameter of one statement. */
export const JSON_CHUNK = 30_000;

/** Tuning (the defaults are the measured ones; see the bench section "search"). */
export interface VectorIndexTuning {
  /**
   * A filtered query re-ranks all its allowed vectors (no first pass) when
   * there are at most exactBase + rows scanned × exactFraction of them, and at
   * most exactMax. Both paths first resolve the allowed items to rows; then the
   * first pass costs a scan of the collections' codes and the exact path a
   * re-rank of each allowed vector (int8 from memory), several times the cost
   * of scanning a code: the crossover is near rows / 20.
   */
  exactBase?: number;
  exactFraction?: number;
  exactMax?: number;
  /**
   * Above this many media ids the allowed rows are not resolved first (resolving costs time per id):
   * unfiltered first pass with a bigger k, filter after, refill; resolve after all if still short.
   */
  resolveMaxMedia?: number;
  /** rows × k above which the first pass is bounded by the sample (0: whenever the sample allows). */
  unboundedMaxWork?: number;
  /** Bytes of int8 copies kept in memory (default 2 GiB ≈ 2.7M 768-d vectors). */
  cacheBytes?: number;
  /**
   * Bytes of 1-bit codes kept in memory for the first pass (default 512 MiB ≈ 5M 768-d rows); a generation
   * that does not fit is searched through vec0.
   */
  codeCacheBytes?: number;
  /** Start loading a generation's codes and int8 copies on its first search (default true). */
  autoWarm?: boolean;
  /** A collection gets coarse lists at rebuild from this many vectors (default IVF_MIN_ROWS). */
  ivfMinRows?: number;
  /** Lists per collection (default: listsFor(rows)). */
  ivfLists?: number;
  /** What the probed lists hold at least: max(rows × fraction, candidates × perCandidate, minRows) (default PROBE_POLICY). */
  ivfProbe?: Partial<ProbePolicy>;
  /** Fewest lists probed (default PROBE_MIN_LISTS). */
  ivfMinProbe?: number;
}

const DEFAULTS = {
  exactBase: 2_000,
  exactFraction: 1 / 20,
  exactMax: 60_000,
  resolveMaxMedia: 50_000,
  unboundedMaxWork: 4_000_000,
  cacheBytes: 2 * 1024 ** 3,
  codeCacheBytes: 512 * 1024 ** 2,
  autoWarm: true,
  ivfMinRows: IVF_MIN_ROWS,
  ivfLists: 0,
  ivfMinProbe: PROBE_MIN_LISTS,
};

/** Every tuning value decided: the caller's over the defaults. */
export type ResolvedTuning = typeof DEFAULTS & { ivfProbe?: Partial<ProbePolicy>; probePolicy: ProbePolicy };

export function resolveTuning(tuning: VectorIndexTuning): ResolvedTuning {
  return { ...DEFAULTS, ...tuning, probePolicy: { ...PROBE_POLICY, ...tuning.ivfProbe } };
}
