/**
 * Duplicates section of `npm run bench`: the near-duplicate scan (src/index/vector/nearDuplicates.ts) over a
 * collection of synthetic 768-dim vectors shaped like an embedder's (a shared direction, 1,000 clusters of
 * similar pictures, noise), 10 % of them planted copies of another (cosine 0.96–0.995: resized, recompressed,
 * bursts). Rows:
 *
 * - the scanner on a sample of S items beside all-pairs cosine on the same S (the baseline, measured), with the
 *   scanner's recall of the baseline's groups;
 * - the scanner on all N items beside all-pairs extrapolated from the sample (×(N/S)²: quadratic), with the
 *   recall of the planted pairs and the pairs grouped that were not planted;
 * - the whole scan job (`scanDuplicates`: reading the vectors from a SQLite library page by page, grouping,
 *   storing the groups) on the same N items, beside the grouping alone, and the event loop's longest stall
 *   during it beside the scan as it ran before on the event loop (./duplicatesStall.ts).
 *
 * Full: N = 100,000 (BENCH_DUPLICATES_SIZE), S = 4,000. --quick: N = 5,000, S = 1,000.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { bruteForceGroups, NearDuplicateScanner } from '../../src/index/vector/nearDuplicates.js';
import { vectorToBlob } from '../../src/index/faces/vectorBlob.js';
import { scanDuplicates } from '../../src/features/duplicates/index.js';
import type { Services } from '../../src/features/kernel/services.js';
import { newMediaId } from '../../src/platform/ids.js';
import { openSqliteStorage } from '../../src/storage/sqlite/index.js';
import { benchCollection } from './benchCollection.js';
import { fmtMs, now, stats, type BenchOptions, type BenchRow, type SectionResult } from './harness.js';
import { scanOnEventLoop, stallOf } from './duplicatesStall.js';
import { xorshift } from './search.js';

const D = 768;
const THRESHOLD = 0.95;
const MODEL = 'bench-embedder:1';

/** N unit vectors; `copyOf[i]` is the item vector i was made from (−1: an original). */
export function makeVectors(n: number, clusters: number, seed: number) {
  const r = xorshift(seed);
  const unit = (v: Float32Array) => {
    let s = 0;
    for (const x of v) s += x * x;
    const inv = 1 / Math.sqrt(s);
    for (let i = 0; i < v.length; i++) v[i] *= inv;
    return v;
  };
  const rand = () => unit(Float32Array.from({ length: D }, () => r() * 2 - 1));
  const common = rand();
  const centres = Array.from({ length: clusters }, rand);
  const vectors: Float32Array[] = [];
  const copyOf = new Int32Array(n).fill(-1);
  for (let i = 0; i < n; i++) {
    if (i > 10 && r() < 0.1) {
      const from = Math.floor(r() * i);
      const base = vectors[from];
      // Noise of norm e gives cosine ≈ 1/√(1+e²): e in [0.1, 0.29] → 0.995…0.96.
      const e = 0.1 + r() * 0.19;
      const scale = e / Math.sqrt(D / 3);
      vectors.push(unit(Float32Array.from(base, (x) => x + (r() * 2 - 1) * scale)));
      copyOf[i] = from;
    } else {
      const c = centres[Math.floor(r() * clusters)];
      vectors.push(
        unit(Float32Array.from({ length: D }, (_, d) => common[d] + c[d] + (r() * 2 - 1) * Math.sqrt(3 / D))),
      );
    }
  }
  return { vectors, copyOf };
}

const fill = (vectors: Float32Array[]) => {
  const s = new NearDuplicateScanner(D);
  for (const v of vectors) s.add(v);
  return s;
};

/** Pairs (a, b) of items grouped together, as "a,b" with a < b, from groups of indexes. */
function samePair(groups: number[][]): (a: number, b: number) => boolean {
  const of = new Map<number, number>();
  groups.forEach((g, k) => g.forEach((i) => of.set(i, k)));
  return (a, b) => of.has(a) && of.get(a) === of.get(b);
}

function row(
  id: string,
  label: string,
  ms: number,
  baseline: { label: string; ms: number } | null,
  note?: string,
): BenchRow {
  return {
    id,
    label,
    ours: stats([ms]),
    baseline: baseline ? { label: baseline.label, stats: stats([baseline.ms]) } : null,
    note,
  };
}

/** A SQLite library holding the vectors as live images' whole-frame embeddings (set statements, as the ingest leaves them). */
export async function library(file: string, vectors: Float32Array[]) {
  const st = openSqliteStorage(file);
  const { userId, organizationId, collectionId, root, at } = await benchCollection(st, 'B');
  const db = st.db;
  const media = db.prepare(
    `INSERT INTO media (id, dataset_id, organization_id, path, parent_path, type, name, blob_key, size_bytes, status,
       processing_status, root_id, is_current, created_at, updated_at, created_by)
     VALUES (?, ?, ?, ?, ?, 'image', 'x.jpg', ?, 1000, 'active', 'ready', ?, 1, ?, ?, ?)`,
  );
  const frame = db.prepare(
    `INSERT INTO frames (id, media_id, timestamp, seconds, blob_key, width, height, created_at, updated_at, created_by)
     VALUES (?, ?, '0', 0, ?, 1, 1, ?, ?, ?)`,
  );
  const object = db.prepare(
    `INSERT INTO detected_objects (id, frame_id, media_id, type, label, polygon, model, created_at, updated_at)
     VALUES (?, ?, ?, 'frame', 'frame', '[]', 'bench', ?, ?)`,
  );
  const embedding = db.prepare(
    `INSERT INTO object_embeddings (object_id, model_id, similarity_model, media_id, dataset_id, dims, vector, created_at)
     VALUES (?, ?, 'objects', ?, ?, ?, ?, ?)`,
  );
  const batch = db.transaction((from: number, to: number) => {
    for (let i = from; i < to; i++) {
      const id = newMediaId();
      const frameId = newMediaId();
      const objectId = newMediaId();
      media.run(id, collectionId, organizationId, `${root}.${id}`, root, `blob-${id}`, id, at, at, userId);
      frame.run(frameId, id, `blob-${id}`, at, at, userId);
      object.run(objectId, frameId, id, at, at);
      embedding.run(objectId, MODEL, id, collectionId, D, vectorToBlob(vectors[i]), at);
    }
  });
  for (let i = 0; i < vectors.length; i += 5000) batch(i, Math.min(vectors.length, i + 5000));
  return { st, collectionId };
}

export async function runDuplicatesBench(opts: BenchOptions): Promise<SectionResult> {
  const t0 = now();
  const n = opts.quick ? 5000 : Number(process.env.BENCH_DUPLICATES_SIZE ?? 100_000);
  const sample = opts.quick ? 1000 : 4000;
  const rows: BenchRow[] = [];
  const findings: string[] = [];
  opts.log(`generating ${n} vectors of ${D} dims`);
  const { vectors, copyOf } = makeVectors(n, opts.quick ? 100 : 1000, 7);

  // 1. The sample: the scanner beside all pairs, same items.
  const small = fill(vectors.slice(0, sample));
  let ts = now();
  const lshSmall = small.groups(THRESHOLD).map((g) => g.members);
  const lshSmallMs = now() - ts;
  ts = now();
  const exactSmall = bruteForceGroups(small, THRESHOLD);
  const bruteMs = now() - ts;
  const inLsh = samePair(lshSmall);
  let pairs = 0;
  let found = 0;
  for (const g of exactSmall)
    for (let x = 1; x < g.length; x++) {
      pairs++;
      if (inLsh(g[0], g[x])) found++;
    }
  const recallSmall = pairs ? found / pairs : 1;
  rows.push({
    ...row(`scan-${sample}`, `near-duplicate groups of ${sample} items`, lshSmallMs, {
      label: 'all pairs, exact cosine',
      ms: bruteMs,
    }),
    check: {
      ok: recallSmall >= 0.98,
      text: `recall of the all-pairs groups: ${(recallSmall * 100).toFixed(1)} % (${found}/${pairs} links)`,
    },
  });

  // 2. All N: the scanner beside all pairs extrapolated.
  const scanner = fill(vectors);
  const counts = { candidates: 0, compared: 0 };
  ts = now();
  const groups = scanner.groups(THRESHOLD, {}, counts);
  const lshMs = now() - ts;
  const together = samePair(groups.map((g) => g.members));
  let planted = 0;
  let kept = 0;
  for (let i = 0; i < n; i++)
    if (copyOf[i] >= 0 && scanner.similarity(i, copyOf[i]) >= THRESHOLD) {
      planted++;
      if (together(i, copyOf[i])) kept++;
    }
  const root = (i: number): number => (copyOf[i] < 0 ? i : root(copyOf[i]));
  const stray = groups.reduce((k, g) => k + g.members.filter((i) => root(i) !== root(g.members[0])).length, 0);
  const recall = planted ? kept / planted : 1;
  const extrapolated = bruteMs * (n / sample) ** 2;
  rows.push({
    ...row(`scan-${n}`, `near-duplicate groups of ${n} items`, lshMs, {
      label: `all pairs (extrapolated ×${((n / sample) ** 2).toFixed(0)} from ${sample})`,
      ms: extrapolated,
    }),
    check: {
      ok: recall >= 0.98 && stray === 0,
      text: `planted pairs ≥ ${THRESHOLD} grouped: ${(recall * 100).toFixed(2)} % (${kept}/${planted}); items grouped with an unrelated one: ${stray}`,
    },
    note: `${groups.length} groups; ${counts.candidates} candidate pairs, ${counts.compared} cosines computed`,
  });

  // 3. The whole job over a SQLite library.
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-dupes-'));
  try {
    opts.log(`filling a SQLite library with ${n} images`);
    const { st, collectionId } = await library(path.join(dir, 'library.db'), vectors);
    const models = {
      modelInfo: () => ({ id: MODEL, task: 'embed', nearDuplicate: THRESHOLD }),
    } as unknown as Services['models'];
    // The event loop's longest stall while the job runs (a server answers requests meanwhile), beside the scan as
    // it ran before on the event loop; alternated (rounds) so that the machine's load falls on both alike.
    let jobMs = 0;
    let stored = 0;
    const ours = { max: 0, p99: 0 };
    const before = { max: 0, p99: 0 };
    let beforeGroups = 0;
    for (let round = 0; round < (opts.quick ? 1 : 2); round++) {
      const b = await stallOf(async () => (beforeGroups = await scanOnEventLoop(st, collectionId, MODEL, THRESHOLD)));
      ts = now();
      const o = await stallOf(
        async () => (stored = (await scanDuplicates({ storage: st, models }, collectionId)).groups),
      );
      jobMs = now() - ts;
      for (const [into, from] of [
        [ours, o],
        [before, b],
      ] as const) {
        into.max = Math.max(into.max, from.max);
        into.p99 = Math.max(into.p99, from.p99);
      }
    }
    rows.push({
      ...row(`job-${n}`, `scan job (read vectors, group, store) of ${n} images`, jobMs, {
        label: 'grouping alone',
        ms: lshMs,
      }),
      check: { ok: stored === groups.length, text: `${stored} groups stored (grouping alone: ${groups.length})` },
    });
    rows.push({
      ...row(`job-${n}-stall`, `longest event-loop stall during the scan job of ${n} images`, ours.max, {
        label: 'the scan on the event loop (before)',
        ms: before.max,
      }),
      check: { ok: beforeGroups === stored, text: `same groups (${beforeGroups})` },
      note: `p99 of the event-loop delay: ${fmtMs(ours.p99)}, before ${fmtMs(before.p99)}`,
    });
    await st.close();
  } finally {
    if (!opts.keep) rmSync(dir, { recursive: true, force: true });
  }
  findings.push(
    `grouping ${n} items took ${fmtMs(lshMs)}, all pairs would take ~${fmtMs(extrapolated)} (×${(extrapolated / lshMs).toFixed(0)})`,
  );
  return {
    section: 'duplicates',
    quick: opts.quick,
    setup: { items: n, sample, dims: D, threshold: THRESHOLD, planted: '10 % copies at cosine 0.96–0.995' },
    rows,
    findings,
    durationMs: now() - t0,
  };
}
