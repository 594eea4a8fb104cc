/**
 * The vector index on pgvector (PGlite here, or TEST_DATABASE_URL) beside SQLite's on the same clustered
 * vectors: recall@10 against the exact answer (brute force in JS) and latency per query, unfiltered and
 * with item filters from broad to very selective, plus pgvector's exact scan as the baseline.
 *
 *   npx tsx scripts/bench/pgvector.ts [--n 20000] [--dims 256] [--queries 50]
 *
 * Both indexes are built the way a library moved in bulk is: the embeddings written to object_embeddings
 * first (on PostgreSQL with the index's triggers off: lumen.vector_sync = off), then rebuild(). Results:
 * docs/measurements/pgvector.md.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { normalize, vectorBytes } from '../../src/index/vector/math.js';
import { pgVectorIndex, type PgVectorIndex } from '../../src/index/vector/postgres/pgVectorIndex.js';
import { sqliteVectorIndex } from '../../src/index/vector/sqlite/sqliteVectorIndex.js';
import { recallAt } from '../../src/index/vector/tuning.js';
import type { VectorIndex, VectorQuery, VectorRow } from '../../src/index/vector/types.js';
import { openDatabase } from '../../src/storage/sqlite/database.js';
import { clustered, dot, rng } from '../../test/helpers/vectors.js';
import { openSchema, putEmbeddings } from '../../test/index/vector/pgFixture.js';
import { pglite } from '../../test/helpers/pglite.js';

const arg = (name: string, dflt: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const N = arg('n', 20_000);
const DIMS = arg('dims', 256);
const QUERIES = arg('queries', 50);
const EFS = (process.argv.includes('--ef') ? process.argv[process.argv.indexOf('--ef') + 1] : '40,100')
  .split(',')
  .map(Number);
const MODEL = 'clip:bench';

const r = rng(42);
const gen = clustered(r, DIMS, Math.max(10, Math.round(N / 1000)));
// Two vectors per item, two collections.
const rows: VectorRow[] = Array.from({ length: N }, (_, i) => ({
  objectId: `o${String(i).padStart(7, '0')}`,
  modelId: MODEL,
  similarityModel: 'objects',
  mediaId: `m${Math.floor(i / 2)}`,
  collectionId: i % 2 ? 'A' : 'B',
  frameId: null,
  vector: gen(),
}));
const media = [...new Set(rows.map((x) => x.mediaId))];
const pick = (count: number) => media.filter((_, i) => i % Math.max(1, Math.floor(media.length / count)) === 0);

function exactTop(q: VectorQuery): string[] {
  const allowed = q.mediaIds ? new Set(q.mediaIds) : null;
  const u = normalize(q.vector);
  return rows
    .filter((x) => q.collectionIds.includes(x.collectionId) && (!allowed || allowed.has(x.mediaId)))
    .map((x) => ({ id: x.objectId, s: dot(u, x.vector) }))
    .sort((a, b) => b.s - a.s)
    .slice(0, q.k)
    .map((x) => x.id);
}

const scenarios: Array<[string, string[] | null]> = [
  ['unfiltered (both collections)', null],
  [`a third of the items (${Math.round(media.length / 3)})`, pick(media.length / 3)],
  ['2% of the items', pick(media.length / 50)],
  ['20 items', pick(20)],
];
const queries = Array.from({ length: QUERIES }, () => gen());

async function measure(label: string, ix: VectorIndex, strategy?: 'exact') {
  for (const [name, mediaIds] of scenarios) {
    let recall = 0;
    const times: number[] = [];
    const strategies = new Map<string, number>();
    for (const v of queries) {
      const q: VectorQuery = {
        modelId: MODEL,
        similarityModel: 'objects',
        vector: v,
        collectionIds: ['A', 'B'],
        k: 10,
      };
      if (mediaIds) q.mediaIds = mediaIds;
      if (strategy) q.strategy = strategy;
      const t0 = performance.now();
      const hits =
        'searchWithInfo' in ix && label.startsWith('pgvector')
          ? await (ix as PgVectorIndex).searchWithInfo(q).then((x) => {
              const key = x.info.strategy + (x.info.fellBack ? ' (fell back)' : '');
              strategies.set(key, (strategies.get(key) ?? 0) + 1);
              return x.hits;
            })
          : await ix.search(q);
      times.push(performance.now() - t0);
      recall += recallAt(
        10,
        hits.map((h) => h.objectId),
        exactTop(q),
      );
    }
    times.sort((a, b) => a - b);
    const ran = [...strategies].map(([s, n]) => `${s} ${n}`).join(', ');
    console.log(
      `| ${label} | ${name} | ${(recall / QUERIES).toFixed(3)} | ${times[Math.floor(QUERIES / 2)].toFixed(1)} | ` +
        `${times[Math.floor(QUERIES * 0.95)].toFixed(1)} | ${ran} |`,
    );
  }
}

// SQLite
const tmp = mkdtempSync(path.join(os.tmpdir(), 'lumen-pgv-bench-'));
const sdb = openDatabase(path.join(tmp, 'b.db'));
const ins = sdb.prepare(
  `INSERT INTO object_embeddings (object_id, model_id, similarity_model, media_id, dataset_id, dims, vector, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
);
sdb.transaction(() => {
  for (const x of rows)
    ins.run(x.objectId, MODEL, 'objects', x.mediaId, x.collectionId, DIMS, vectorBytes(x.vector), 'now');
})();
const six = sqliteVectorIndex(sdb);
let t0 = performance.now();
await six.rebuild(MODEL);
await six.warm(MODEL);
const sqliteBuild = performance.now() - t0;

// pgvector
const pdb = await openSchema();
await pdb.tx(async (tx) => {
  await tx.query(`SET LOCAL lumen.vector_sync = off`);
  for (let i = 0; i < rows.length; i += 2000) await putEmbeddings(tx, rows.slice(i, i + 2000));
});
const pix = pgVectorIndex(pdb, { enabled: true });
t0 = performance.now();
await pix.rebuild(MODEL);
const pgBuild = performance.now() - t0;
// Steady state: autovacuum would have set the visibility map (index-only counts) by now; PGlite has none.
await pdb.query(`VACUUM (ANALYZE) vector_entries`);

console.log(
  `\n${N} × ${DIMS} clustered, ${QUERIES} queries, k = 10; rebuild: SQLite ${(sqliteBuild / 1000).toFixed(1)} s, ` +
    `pgvector ${(pgBuild / 1000).toFixed(1)} s\n`,
);
console.log('| index | filter | recall@10 | p50 ms | p95 ms | strategy |');
console.log('| --- | --- | --- | --- | --- | --- |');
await measure('SQLite', six);
for (const ef of EFS)
  await measure(`pgvector ef_search ${ef}`, pgVectorIndex(pdb, { enabled: true, tuning: { efSearch: ef } }));
await measure('pgvector exact scan', pix, 'exact');
sdb.close();
rmSync(tmp, { recursive: true, force: true });
await pdb.close();
if (!process.env.TEST_DATABASE_URL) await (await pglite()).stop();
