/**
 * The in-memory copy of the index's 1-bit codes (src/index/vector/bitCodeMirror.ts,
 * sqlite/codeMirror.ts, sqlite/vecChunks.ts, hammingSimd.ts):
 * the scan agrees with brute force (SIMD and JavaScript counting); once loaded, searches run their first pass there and answer what
 * sqlite-vec's own KNN answers; writes, deletes and replacements are seen by
 * the next search; a rolled-back write leaves no trace; a write the mirror was
 * not told about (another index object on the file) is caught by the row
 * counts, answered through vec0 meanwhile, and reloaded.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { setImmediate as turn } from 'node:timers/promises';
import { nowIso } from '../../../src/platform/ids.js';
import { BitCodeMirror, codeWords, rowidBitmap } from '../../../src/index/vector/bitCodeMirror.js';
import { simdHamming } from '../../../src/index/vector/hammingSimd.js';
import { normalize, vectorBytes } from '../../../src/index/vector/math.js';
import { quantizeBits } from '../../../src/index/vector/quantize.js';
import { type VectorRow } from '../../../src/index/vector/types.js';
import { openDatabase, type Db } from '../../../src/storage/sqlite/database.js';
import {
  sqliteVectorIndex,
  type SqliteVectorIndex,
  type VectorIndexTuning,
} from '../../../src/index/vector/sqlite/sqliteVectorIndex.js';
import { vecChunkReader } from '../../../src/index/vector/sqlite/vecChunks.js';
import { clustered, rng } from '../../helpers/vectors.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'lumen-codes-'));
process.on('exit', () => rmSync(tmp, { recursive: true, force: true }));
let fileNo = 0;

// ---------------------------------------------------------------- the scan

const scan = suite('code mirror: scan');

const popcount8 = (x: number) => {
  let n = 0;
  for (; x; x &= x - 1) n++;
  return n;
};
const hamming = (a: Uint8Array, b: Uint8Array) => a.reduce((s, x, i) => s + popcount8(x ^ b[i]), 0);

scan(
  'nearest codes by Hamming distance, ties by rowid, lists and allowed rows respected (768, 256 and 136 bits)',
  () => {
    for (const dims of [768, 256, 136]) {
      const r = rng(dims);
      const bytes = dims / 8;
      const m = new BitCodeMirror(dims);
      const all: Array<{ rowid: number; list: number; code: Uint8Array }> = [];
      let rowid = 1;
      for (let c = 0; c < 6; c++) {
        const n = 200 + c * 37;
        const list = c % 3;
        const rowids = new Float64Array(n);
        const codes = new Uint32Array(n * m.words);
        for (let i = 0; i < n; i++) {
          const code = Uint8Array.from({ length: bytes }, () => Math.floor(r() * 256));
          rowids[i] = rowid;
          codeWords(code, m.words, codes, i * m.words);
          all.push({ rowid, list, code });
          rowid += 1 + (i % 3); // gaps, as deletes leave
        }
        m.put({ id: c + 1, ds: 'A', sm: 'objects', list, rowids, codes });
      }
      const q = Uint8Array.from({ length: bytes }, () => Math.floor(r() * 256));
      const brute = (keep: (x: (typeof all)[number]) => boolean, want: number) =>
        all
          .filter(keep)
          .map((x) => ({ rowid: x.rowid, distance: hamming(x.code, q) }))
          .sort((a, b) => a.distance - b.distance || a.rowid - b.rowid)
          .slice(0, want);
      assert.equal(
        m.scan([{ ds: 'A', sm: 'objects', list: null }], q, 50),
        brute(() => true, 50),
        `${dims}: every list`,
      );
      assert.equal(
        m.scan([{ ds: 'A', sm: 'objects', list: 1 }], q, 30),
        brute((x) => x.list === 1, 30),
        `${dims}: one list`,
      );
      const allowed = all.filter((_, i) => i % 7 === 0).map((x) => x.rowid);
      const set = new Set(allowed);
      assert.equal(
        m.scan([{ ds: 'A', sm: 'objects', list: null }], q, 40, rowidBitmap(allowed)),
        brute((x) => set.has(x.rowid), 40),
        `${dims}: allowed rows`,
      );
      assert.equal(m.scan([{ ds: 'B', sm: 'objects', list: null }], q, 10), [], `${dims}: another collection`);
      assert.equal(m.scan([{ ds: 'A', sm: 'faces', list: null }], q, 10), [], `${dims}: another similarity model`);
      assert.is(
        m.scan([{ ds: 'A', sm: 'objects', list: null }], q, 100_000).length,
        all.length,
        `${dims}: fewer rows than wanted`,
      );
      // Replacing and dropping chunks keeps the counts.
      const before = m.rows('A', 'objects');
      m.drop(2);
      assert.is(m.rows('A', 'objects'), before - (200 + 37));
      m.dropGroup('A', 'objects');
      assert.is(m.rows('A', 'objects'), 0);
    }
  },
);

// ---------------------------------------------------------------- in the SQLite index

const sqlite = suite('code mirror: in the SQLite vector index');

const D = 128;
/** Lists from 2,000 rows (8 of them), so chunks carry a list as their third partition key. */
const SMALL: VectorIndexTuning = {
  ivfMinRows: 2_000,
  ivfLists: 8,
  ivfMinProbe: 2,
  ivfProbe: { fraction: 1 / 4, perCandidate: 1, minRows: 0 },
};

function open(tuning: VectorIndexTuning = SMALL): { db: Db; ix: SqliteVectorIndex } {
  const db = openDatabase(path.join(tmp, `c${++fileNo}.db`));
  return { db, ix: sqliteVectorIndex(db, tuning) };
}
const row = (objectId: string, vector: Float32Array, collectionId = 'A'): VectorRow => ({
  objectId,
  modelId: 'clip:test',
  similarityModel: 'objects',
  mediaId: `m-${objectId}`,
  collectionId,
  frameId: `f-${objectId}`,
  vector,
});
function put(db: Db, ix: SqliteVectorIndex, rows: VectorRow[]) {
  const ins = db.prepare(
    `INSERT OR REPLACE INTO object_embeddings (object_id, model_id, similarity_model, media_id, dataset_id, dims, vector, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  db.transaction(() => {
    for (const r of rows)
      ins.run(
        r.objectId,
        r.modelId,
        r.similarityModel,
        r.mediaId,
        r.collectionId,
        D,
        vectorBytes(normalize(r.vector)),
        nowIso(),
      );
    ix.sync.upsert(rows);
  })();
}
const search = (ix: SqliteVectorIndex, vector: Float32Array, k = 10) =>
  ix.searchWithInfo({ modelId: 'clip:test', similarityModel: 'objects', vector, collectionIds: ['A'], k });

/** A loaded index over 6,000 clustered vectors with lists, and its generator. */
async function loaded(tuning?: VectorIndexTuning) {
  const t = open(tuning);
  const gen = clustered(rng(11), D, 12);
  put(
    t.db,
    t.ix,
    Array.from({ length: 6_000 }, (_, i) => row(`o${i}`, gen())),
  );
  await t.ix.rebuild('clip:test');
  await t.ix.warm('clip:test');
  return { ...t, gen };
}

sqlite('the chunks read back are the codes sqlite-vec holds; an unknown layout gets no reader', async () => {
  const t = await loaded();
  const g = t.db.prepare(`SELECT id FROM vector_indexes WHERE state = 'live'`).pluck().get() as number;
  const reader = vecChunkReader(t.db, `vec_index_${g}`, D, true)!;
  assert.ok(reader, 'the layout of sqlite-vec 0.1.9');
  const chunks = reader.after(0, 1000);
  assert.is(
    chunks.reduce((n, c) => n + c.rowids.length, 0),
    6_000,
    'every live row once',
  );
  // A row's code as vec0 holds it (vec_quantize of the same vector) equals what the mirror read.
  const probe = chunks[1];
  const rowid = probe.rowids[5];
  const stored = t.db
    .prepare(`SELECT embedding FROM vec_index_${g} WHERE rowid = ?`)
    .pluck()
    .get(BigInt(rowid)) as Buffer;
  const words = Math.ceil(D / 32);
  assert.equal([...probe.codes.subarray(5 * words, 6 * words)], [...codeWords(new Uint8Array(stored), words)]);
  assert.is(reader.chunkOf(rowid), probe.id);
  assert.is(reader.chunkOf(10_000_000), null);
  assert.is(vecChunkReader(t.db, 'no_such_table', D, true), null);
  t.db.close();
});

sqlite('once loaded, the first pass runs in memory and answers what the vec0 KNN answers', async () => {
  const t = await loaded();
  const viaVec0 = sqliteVectorIndex(t.db, { ...SMALL, codeCacheBytes: 0 });
  for (let i = 0; i < 15; i++) {
    const q = t.gen();
    const mem = search(t.ix, q);
    const vec = search(viaVec0, q);
    assert.is(mem.info.firstPass, 'memory');
    assert.is(vec.info.firstPass, 'sqlite');
    assert.ok(mem.info.lists > 0, 'nearest lists only');
    assert.equal(
      mem.hits.map((h) => h.objectId),
      vec.hits.map((h) => h.objectId),
      `query ${i}`,
    );
  }
  t.db.close();
});

sqlite(
  'rows written, replaced and deleted are seen by the next search; a rolled-back write leaves no trace',
  async () => {
    const t = await loaded();
    const q = t.gen();
    // New rows right at the query.
    put(t.db, t.ix, [row('new1', q), row('new2', q)]);
    let r = search(t.ix, q);
    assert.is(r.info.firstPass, 'memory');
    assert.equal(
      r.hits
        .slice(0, 2)
        .map((h) => h.objectId)
        .sort(),
      ['new1', 'new2'],
    );
    // Replaced by a far vector: no longer at the top; deleted: gone.
    const far = Float32Array.from(q, (x) => -x);
    put(t.db, t.ix, [row('new1', far)]);
    t.db.prepare(`DELETE FROM object_embeddings WHERE object_id = 'new2'`).run();
    t.ix.sync.remove(['new2']);
    r = search(t.ix, q);
    assert.is(r.info.firstPass, 'memory');
    assert.not.ok(r.hits.some((h) => h.objectId === 'new1' || h.objectId === 'new2'));
    assert.is(search(t.ix, far, 1).hits[0].objectId, 'new1', 'found by its new vector');
    // A write rolled back by its transaction.
    assert.throws(() =>
      t.db.transaction(() => {
        t.ix.sync.upsert([row('phantom', q)]);
        throw new Error('rolled back');
      })(),
    );
    r = search(t.ix, q);
    assert.is(r.info.firstPass, 'memory', 'the mirror still agrees with the counts');
    assert.not.ok(r.hits.some((h) => h.objectId === 'phantom'));
    t.db.close();
  },
);

sqlite(
  'a write the mirror was not told about is caught by the counts, answered through vec0, then reloaded',
  async () => {
    const t = await loaded();
    const q = t.gen();
    const other = sqliteVectorIndex(t.db, SMALL); // another writer on the same file (its own mirror, unloaded)
    put(t.db, other, [row('elsewhere', q)]);
    let r = search(t.ix, q);
    assert.is(r.info.firstPass, 'sqlite', 'counts differ: vec0 answers');
    assert.is(r.hits[0].objectId, 'elsewhere');
    for (let i = 0; i < 5 && r.info.firstPass !== 'memory'; i++) {
      await turn();
      r = search(t.ix, q);
    }
    assert.is(r.info.firstPass, 'memory', 'reloaded');
    assert.is(r.hits[0].objectId, 'elsewhere');
    t.db.close();
  },
);

sqlite('a budget too small for the codes leaves the first pass to vec0', async () => {
  const t = await loaded({ ...SMALL, codeCacheBytes: 10_000 });
  const r = search(t.ix, t.gen());
  assert.is(r.info.firstPass, 'sqlite');
  assert.is(r.hits.length, 10);
  t.db.close();
});

scan('the SIMD kernel counts what JavaScript counts, at every code size it takes (and only those)', () => {
  const random = rng(7);
  for (const words of [4, 8, 24, 32, 124]) {
    const kernel = simdHamming(words);
    assert.ok(kernel, `${words} words: a kernel (Node has WebAssembly SIMD)`);
    const rows = 37;
    const codes = Uint32Array.from({ length: rows * words }, () => (random() * 2 ** 32) >>> 0);
    const query = Uint32Array.from({ length: words }, () => (random() * 2 ** 32) >>> 0);
    const out = new Uint16Array(rows + 3).fill(9);
    kernel!.distances(codes, rows, query, out, 3);
    const bytes = (a: Uint32Array) => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
    const expected = Array.from({ length: rows }, (_, r) =>
      hamming(bytes(codes.subarray(r * words, (r + 1) * words)), bytes(query)),
    );
    assert.equal([...out.subarray(0, 3)], [9, 9, 9], `${words} words: nothing written before the offset`);
    assert.equal([...out.subarray(3)], expected, `${words} words`);
    // Identical codes: distance 0; opposite codes: every bit.
    kernel!.distances(query, 1, query, out, 0);
    assert.is(out[0], 0);
    kernel!.distances(
      query.map((w) => ~w >>> 0),
      1,
      query,
      out,
      0,
    );
    assert.is(out[0], words * 32);
  }
  for (const words of [0, 5, 6, 128]) assert.is(simdHamming(words), null, `${words} words: counted in JavaScript`);
});

// Keep quantizeBits in the import list honest: the mirror's codes are quantizeBits' layout.
scan('codeWords packs quantizeBits codes least significant bit first', () => {
  const v = Float32Array.from({ length: 64 }, (_, i) => (i % 3 === 0 ? 1 : -1));
  const w = codeWords(quantizeBits(v, null), 2);
  for (let i = 0; i < 64; i++) assert.is((w[i >> 5] >>> (i & 31)) & 1, i % 3 === 0 ? 1 : 0);
});

scan.run();
sqlite.run();
