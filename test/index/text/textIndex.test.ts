/**
 * The FTS5 text index (src/index/text/sqlite/, migrations/005_text_index.sql).
 * The engine-neutral contract (./suite.ts) runs here against SQLite; this file
 * adds what is SQLite's own: the writer called directly, the ways a query is
 * answered (occurrences, full matches, FTS5 candidates, item lists), the
 * worker thread, the migration's backfill; and the pure parts (parseQuery,
 * textRank). The fixture's assertInStep runs after each test.
 *
 * TEXT_INDEX_BENCH=1 adds a timing run on synthetic captions (optionally
 * TEXT_INDEX_BENCH_N=100000 images; TEXT_INDEX_BENCH_CACHE_MB=1024 for the
 * bulk insert, whose speed depends on the page cache once the file outgrows it).
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { newMediaId, nowIso, pathLabel } from '../../../src/platform/ids.js';
import { inflections, parseQuery } from '../../../src/index/text/query.js';
import type { TextHit, TextSearchQuery } from '../../../src/index/text/textIndex.js';
import { textRank } from '../../../src/index/text/textRank.js';
import { sqliteTextIndex, type SqliteTextIndexOptions } from '../../../src/index/text/sqlite/textIndex.js';
import { threadedTextIndex } from '../../../src/index/text/sqlite/thread.js';
import { sqliteTextIndexWriter } from '../../../src/index/text/sqlite/writer.js';
import type { TextIndexWriter } from '../../../src/index/text/writer.js';
import { sqliteAnalysisStore } from '../../../src/storage/sqlite/analysisStore.js';
import { migrate } from '../../../src/storage/sqlite/migrate.js';
import { stopWorker } from '../../../src/platform/spawnWorker.js';
import { seededRandom } from '../../../src/platform/random.js';
import { addItem, analyse, assertInStep, itemsOf, keys, newCollection, open, search, type Fx } from './fixture.js';
import { textIndexSuite } from './suite.js';

textIndexSuite('sqlite', async () => {
  const fx = await open();
  return { ...fx, assertInStep: async () => assertInStep(fx.s.db), close: () => fx.s.close() };
});

const test = suite('text index (SQLite only)');
let fx: Fx;
test.before.each(async () => {
  fx = await open();
});
test.after.each(async () => {
  assertInStep(fx.s.db);
  await fx.s.close();
});

// ---------------------------------------------------------------- what is found

/** The index's row count kept by triggers (idf's N) agrees with the rows. */
function assertRowCount() {
  const kept = fx.s.db.prepare(`SELECT rows FROM text_index_rows WHERE id = 1`).pluck().get();
  assert.is(
    kept,
    fx.s.db.prepare(`SELECT count(*) FROM text_index_docs`).pluck().get(),
    'text_index_rows follows inserts and deletes',
  );
}

// ---------------------------------------------------------------- filters

test('an item whose collection changes (no API does this yet) is found in its new one only', async () => {
  const other = await newCollection(fx.s, fx.org.id, fx.user.id);
  const a = await addItem(fx, {
    name: 'glacier.jpg',
    frames: [{ captions: ['a glacier'] }],
    metadata: { tags: { place: ['Iceland'] } },
  });
  // As a store would: the change and the index writer's word, in one transaction.
  fx.s.db.transaction(() => {
    fx.s.db.prepare(`UPDATE media SET dataset_id = ? WHERE id = ?`).run(other.id, a.id);
    sqliteTextIndexWriter(fx.s.db).reindexMedia([a.id]);
  })();
  assert.equal(await search(fx, 'glacier iceland'), []);
  assert.equal(itemsOf(await search(fx, 'glacier iceland', { collectionIds: [other.id] })), [a.id]);
});

test('mediaIds: the same answer whichever way the list is applied', async () => {
  const a = await addItem(fx, { name: 'meadow.jpg', frames: [{ captions: ['horses in a meadow'] }] });
  const b = await addItem(fx, { frames: [{ captions: ['a meadow'] }] });
  await addItem(fx, { frames: [{ captions: ['a meadow at night'] }] });
  assert.is(itemsOf(await search(fx, 'meadow')).length, 3);
  assert.equal(itemsOf(await search(fx, 'meadow', { mediaIds: [a.id, b.id] })), [a.id, b.id].sort());
  assert.equal(itemsOf(await search(fx, 'meadow', { mediaIds: [b.id] })), [b.id]);
  assert.equal(await search(fx, 'meadow', { mediaIds: [] }), []);
  assert.is(itemsOf(await search(fx, 'meadow', { mediaIds: null })).length, 3);
  // The same answer from FTS5 joined with the list (the default here), from the items' rows read directly,
  // and from FTS5 without the list, filtered afterwards (a long list).
  const ways = [fx.index, sqliteTextIndex(fx.s.db, { directCost: 0 }), sqliteTextIndex(fx.s.db, { joinIds: 1 })];
  const many = [a.id, b.id, ...Array.from({ length: 50 }, newMediaId)];
  for (const q of ['meadow horses', 'meadow', 'horse', 'meadow.jpg']) {
    const answers = await Promise.all(
      ways.map((w) => w.search({ query: q, collectionIds: [fx.coll.id], mediaIds: many, limit: 10 })),
    );
    for (const other of answers.slice(1)) {
      assert.equal(keys(other), keys(answers[0]), `${q}: the same hits`);
      assert.equal(
        other.map((h) => [h.score, h.matchedFields]),
        answers[0].map((h) => [h.score, h.matchedFields]),
        `${q}: the same scores`,
      );
    }
    assert.ok(answers[0].length > 0 && answers[0].every((h) => h.mediaId === a.id || h.mediaId === b.id), q);
  }
});

// ---------------------------------------------------------------- queries

test('common words (above the ranked-match budget) still find and rank everything', async () => {
  // FTS5's path (no occurrences read: df estimated above the budget), then the occurrences' path.
  for (const options of [{ rankedMatches: 2, postingsBudget: 0 }, { rankedMatches: 2 }]) await commonWords(options);
});

async function commonWords(options: SqliteTextIndexOptions): Promise<void> {
  const small = await open(options);
  try {
    const items = [];
    for (let i = 0; i < 6; i++)
      items.push(await addItem(small, { frames: [{ captions: [`a person walking ${i % 2 ? 'a dog' : 'alone'}`] }] }));
    const rare = await addItem(small, { frames: [{ captions: ['a person with a giraffe'] }] });
    const all = await small.index.search({ query: 'person', collectionIds: [small.coll.id], limit: 50 });
    assert.is(all.length, 7, 'a word above the budget still returns every match');
    const mixed = await small.index.search({ query: 'person giraffe', collectionIds: [small.coll.id], limit: 50 });
    assert.is(mixed[0].mediaId, rare.id, 'the rare word leads');
    assert.is(mixed[0].termsMatched, 2, 'and the common word still counts');
    assert.is(mixed.length, 7);
    const both = await small.index.search({ query: 'person dog', collectionIds: [small.coll.id], limit: 3 });
    assert.equal(
      both.map((h) => h.termsMatched),
      [2, 2, 2],
      'rows with every common word come first',
    );
  } finally {
    assertInStep(small.s.db);
    await small.s.close();
  }
}

test("read from the index's occurrences, the full matches' only, or from the text: the same hits and scores", async () => {
  // Below its budget of occurrences a query is answered from the index's own occurrences (no text read back);
  // above it, from FTS5 candidates whose text is read back. Where every match is a candidate both must agree.
  // With common words and enough rows holding them all, from those rows' occurrences only: the same answer
  // as from every occurrence, at any limit.
  const other = await newCollection(fx.s, fx.org.id, fx.user.id);
  const r = seededRandom(11);
  const vocab = [
    'beach',
    'beaches',
    'dog',
    'dogs',
    'bus',
    'buses',
    'knife',
    'knives',
    'run',
    'running',
    'sunset',
    'sun',
    'sunny',
    'red',
    'party',
    'harbour',
    'boat',
    'boats',
    'island',
  ];
  const pick = (k: number) => Array.from({ length: k }, () => vocab[Math.floor(r() * vocab.length)]).join(' ');
  for (let i = 0; i < 24; i++) {
    await addItem(fx, {
      coll: i % 3 === 2 ? other : fx.coll,
      name: `IMG_${i}_${pick(1)}.jpg`,
      metadata: {
        ...(r() < 0.3 ? { description: pick(3) } : {}),
        ...(r() < 0.4 ? { tags: { place: [pick(1)], mood: [pick(2)] } } : {}),
      },
      frames: Array.from({ length: 1 + Math.floor(r() * 3) }, () => ({
        captions: [pick(2 + Math.floor(r() * 4))],
        ocr: r() < 0.3 ? [pick(1)] : [],
      })),
    });
  }
  const occurrences = sqliteTextIndex(fx.s.db, { postingsBudget: Infinity, fullMatchRows: Infinity });
  const text = sqliteTextIndex(fx.s.db, { postingsBudget: 0, fullMatchRows: Infinity });
  const queries = [
    'beach',
    'dog beach',
    'buses',
    'knife',
    'sun',
    'sunn',
    'beach dog sunset',
    'red party',
    'harbour boats',
    'isla',
    'img',
    'boat island run',
    'nothing here',
  ];
  for (const collectionIds of [[fx.coll.id], [fx.coll.id, other.id], [other.id]]) {
    for (const query of queries) {
      const q = { query, collectionIds, limit: 100 };
      const [a, b] = await Promise.all([occurrences.search(q), text.search(q)]);
      assert.equal(keys(a), keys(b), `${query}: the same hits`);
      const byKey = (hits: TextHit[]) =>
        new Map(
          hits.map((h) => [
            `${h.mediaId}/${h.frameId}`,
            [h.score.toFixed(12), h.termsMatched, h.matchedFields, h.collectionId],
          ]),
        );
      assert.equal(byKey(a), byKey(b), `${query}: the same scores, fields and collections`);
      assert.ok(
        a.every((h) => collectionIds.includes(h.collectionId)),
        `${query}: only the collections asked for`,
      );
    }
  }
  assert.ok(
    (await occurrences.search({ query: 'beach dog', collectionIds: [fx.coll.id], limit: 100 })).length > 3,
    'the fixture has matches',
  );

  const paths: string[] = [];
  const every = sqliteTextIndex(fx.s.db, { postingsBudget: Infinity, fullMatchRows: Infinity, minCandidates: 1 });
  const full = sqliteTextIndex(fx.s.db, { fullMatchRows: 0, minCandidates: 1, onPath: (p) => paths.push(p) });
  const taken = new Set<string>();
  for (const collectionIds of [[fx.coll.id], [fx.coll.id, other.id]]) {
    for (const query of queries) {
      for (const limit of [1, 2, 3, 5, 100]) {
        const q = { query, collectionIds, limit };
        const [a, b] = [await every.search(q), await full.search(q)];
        if (paths.at(-1) === 'fullMatches') taken.add(`${query}/${limit}`);
        assert.equal(b, a, `${query}, limit ${limit}: the same hits from the full matches' occurrences`);
      }
    }
  }
  assert.ok(taken.size >= 6, `the full matches answered some (${[...taken].join(', ')})`);
  assert.ok(
    ['dog beach/1', 'dog beach/2'].every((k) => taken.has(k)),
    'including two common words at a small limit',
  );
});

test('searched from a worker thread (a big library): warmed, the same hits, new writes seen, a lost worker answered here', async () => {
  const r = seededRandom(5);
  const vocab = ['beach', 'dog', 'dogs', 'bus', 'sunset', 'sunny', 'red', 'boat', 'island'];
  const pick = (k: number) => Array.from({ length: k }, () => vocab[Math.floor(r() * vocab.length)]).join(' ');
  for (let i = 0; i < 12; i++)
    await addItem(fx, { name: `IMG_${i}.jpg`, frames: [{ captions: [pick(3)], ocr: r() < 0.3 ? [pick(1)] : [] }] });
  const small = threadedTextIndex(fx.s.db, fx.s.db.name);
  assert.not.ok(small.threaded(), 'a small library is searched in this thread');
  assert.equal(await small.warm(), { rows: 0 }, 'and has nothing to warm');
  assert.is(small.worker(), null);
  const threaded = threadedTextIndex(fx.s.db, fx.s.db.name, { threadRows: 0 });
  try {
    assert.ok(threaded.threaded());
    // Warming reads the row map (a row each), its media index (an entry each) and the FTS5 data, with a
    // search asked meanwhile answered all the same.
    const docs = fx.s.db.prepare(`SELECT count(*) FROM text_index_docs`).pluck().get() as number;
    const during = threaded.search({ query: 'beach', collectionIds: [fx.coll.id], limit: 50 });
    const { rows } = await threaded.warm();
    assert.ok(rows > 2 * docs, `${rows} rows read for ${docs} index rows`);
    assert.equal(await during, await fx.index.search({ query: 'beach', collectionIds: [fx.coll.id], limit: 50 }));
    const queries = ['beach', 'dog beach', 'sunn', 'red boat island', 'img', 'nothing here'];
    for (const query of queries) {
      const q = { query, collectionIds: [fx.coll.id], limit: 50 };
      assert.equal(
        await threaded.search(q),
        await fx.index.search(q),
        `${query}: the worker answers as this thread does`,
      );
    }
    assert.ok(threaded.worker(), 'a worker runs');
    // Its own connection sees what was committed after it started.
    const added = await addItem(fx, { frames: [{ captions: ['a zeppelin over the harbour'] }] });
    assert.equal(itemsOf(await threaded.search({ query: 'zeppelin', collectionIds: [fx.coll.id], limit: 10 })), [
      added.id,
    ]);
    // A worker lost with searches in flight: they are answered here, and the next search starts a new worker.
    const first = threaded.worker()!;
    const q = { query: 'beach dog', collectionIds: [fx.coll.id], limit: 50 };
    const pending = threaded.search(q);
    await stopWorker(first);
    assert.equal(await pending, await fx.index.search(q));
    assert.equal(await threaded.search(q), await fx.index.search(q));
    assert.ok(threaded.worker() && threaded.worker() !== first, 'a new worker');
  } finally {
    await threaded.close();
  }
  assert.is(threaded.worker(), null, 'closed: no worker left');
  assert.ok(
    (await threaded.search({ query: 'zeppelin', collectionIds: [fx.coll.id], limit: 10 })).length === 1,
    'closed: answered in this thread',
  );
});

// ---------------------------------------------------------------- migration

test('the migration indexes an existing library (backfill)', async () => {
  const a = await addItem(fx, {
    name: 'IMG_7_fjord.jpg',
    metadata: { description: 'Geiranger', tags: { trip: ['Norway'] } },
    frames: [{ captions: ['a fjord'], ocr: ['FERRY'] }],
  });
  const gone = await addItem(fx, { frames: [{ captions: ['a fjord'] }] });
  await fx.s.media.softDelete(gone.id, fx.user.id);
  const before = await Promise.all(['fjord', 'geiranger', 'norway', 'ferry'].map((q) => search(fx, q)));
  const db = fx.s.db;
  // Back to the schema before 005: drop everything it created, then migrate again (009 drops its triggers).
  const created = db
    .prepare(
      `SELECT type, name FROM sqlite_schema WHERE name LIKE 'text_index%' AND type IN ('trigger', 'view', 'table')`,
    )
    .all() as Array<{ type: string; name: string }>;
  for (const o of created.filter((o) => o.type === 'trigger')) db.exec(`DROP TRIGGER ${o.name}`);
  for (const o of created.filter((o) => o.type === 'view')) db.exec(`DROP VIEW ${o.name}`);
  db.exec(`DROP TABLE text_index; DROP TABLE text_index_docs; DROP TABLE text_index_rows`);
  const again = ['005_text_index.sql', '008_text_index_rows.sql', '009_text_index_writer.sql'];
  db.prepare(`DELETE FROM schema_migrations WHERE name IN (SELECT value FROM json_each(?))`).run(JSON.stringify(again));
  assert.equal(migrate(db), again);
  assert.equal(
    db
      .prepare(`SELECT name FROM sqlite_schema WHERE type = 'trigger' AND name LIKE 'text_index%' ORDER BY name`)
      .pluck()
      .all(),
    ['text_index_rows_delete', 'text_index_rows_insert'],
    'only the row counter is kept by triggers',
  );
  assertRowCount();
  fx.index = sqliteTextIndex(db);
  const after = await Promise.all(['fjord', 'geiranger', 'norway', 'ferry'].map((q) => search(fx, q)));
  assert.equal(after.map(keys), before.map(keys));
  assert.equal(itemsOf(after[0]), [a.id]);
});

// ---------------------------------------------------------------- pure parts

test('parseQuery: words, stopwords, forms, prefix', () => {
  assert.equal(
    parseQuery('The RED bus, in the rain!').map((t) => t.text),
    ['red', 'bus', 'rain'],
  );
  assert.equal(
    parseQuery('the who').map((t) => t.text),
    ['the', 'who'],
    'only stopwords: kept',
  );
  assert.equal(parseQuery('"NEAR( AND * : 🚌'), [{ text: 'near', forms: ['near'], prefix: false }]);
  assert.equal(
    parseQuery('beac').map((t) => t.prefix),
    [true],
  );
  assert.equal(
    parseQuery('beac ').map((t) => t.prefix),
    [false],
  );
  assert.equal(
    parseQuery('beac', { prefix: false }).map((t) => t.prefix),
    [false],
  );
  assert.equal(parseQuery('bus bus BUS').length, 1);
  assert.is(parseQuery(Array.from({ length: 40 }, (_, i) => `word${i}`).join(' ')).length, 12);
  assert.equal(parseQuery(''), []);
  assert.ok(inflections('bus').includes('buses'));
  assert.ok(inflections('buses').includes('bus'));
  assert.ok(inflections('knives').includes('knife'));
  assert.ok(inflections('children').includes('child'));
  assert.equal(inflections('constructor'), ['constructor']);
});

test('textRank: 0..1, monotonic, floors and bands', () => {
  assert.is(textRank(0, 0, 3), 0);
  assert.is(textRank(5, 1, 0), 0);
  for (const n of [1, 2, 3, 5]) {
    let last = -1;
    for (const bm25 of [0, 0.1, 1, 3, 10, 100, 1e9, Infinity]) {
      const r = textRank(bm25, n, n);
      assert.ok(r >= 0.6 && r <= 1, `full match in [0.6, 1]: ${r}`);
      assert.ok(r >= last, 'monotonic in bm25');
      last = r;
    }
  }
  assert.ok(
    textRank(3, 1, 2) > textRank(3, 0.5, 2) && textRank(3, 2, 2) > textRank(3, 1, 2),
    'monotonic in words matched',
  );
  assert.ok(textRank(100, 1, 4) <= 0.0625 && textRank(0, 1, 4) >= 0.0375, '1 of 4 words is barely related');
});

// ---------------------------------------------------------------- timing

if (process.env.TEXT_INDEX_BENCH) {
  test('timing (TEXT_INDEX_BENCH)', async () => {
    await bench(Number(process.env.TEXT_INDEX_BENCH_N ?? 100_000));
  });
}

/**
 * n images with one frame each: a caption of 6..14 words drawn Zipf-like from
 * 5000 words (plus real English ones; "a" and "the" are in most captions, as
 * with real captioners), OCR on a fifth, tags on a third, file names like
 * IMG_123_word-word.jpg, in 4 collections. Rows are inserted with SQL in
 * batches (the index writer indexes each item), then queries of 1..3 words are timed.
 */
async function bench(n: number): Promise<void> {
  const b = await open();
  const db = b.s.db;
  const r = seededRandom(7);
  const english =
    'a the on in with of and person man woman car bus street building tree sky red blue green white black dog cat table chair window sign road water beach people standing sitting walking holding'.split(
      ' ',
    );
  const syll = ['ka', 'lo', 'mi', 'ne', 'ru', 'sa', 'ti', 'vo', 'ze', 'pa', 'do', 'gu', 'be', 'fi', 'ho'];
  const vocab = [...english];
  const seen = new Set(vocab);
  while (vocab.length < 5000) {
    let w = '';
    for (let i = 0, k = 2 + Math.floor(r() * 3); i < k; i++) w += syll[Math.floor(r() * syll.length)];
    if (!seen.has(w)) {
      seen.add(w);
      vocab.push(w);
    }
  }
  const word = () => vocab[Math.min(vocab.length - 1, Math.floor(Math.pow(r(), 2.2) * vocab.length))];
  const words = (k: number) => Array.from({ length: k }, word).join(' ');
  const colls = [b.coll, ...(await Promise.all([1, 2, 3].map(() => newCollection(b.s, b.org.id, b.user.id))))];
  const at = nowIso();
  const insMedia = db.prepare(
    `INSERT INTO media (id, dataset_id, organization_id, path, parent_path, type, name, metadata, description, processing_status, root_id, created_at, updated_at, created_by)
     VALUES (?, ?, ?, ?, ?, 'image', ?, '{}', ?, 'ready', ?, ?, ?, ?)`,
  );
  const insFrame = db.prepare(
    `INSERT INTO frames (id, media_id, timestamp, seconds, blob_key, width, height, created_at, updated_at, created_by) VALUES (?, ?, '0', 0, ?, 1, 1, ?, ?, ?)`,
  );
  const insCaption = db.prepare(
    `INSERT INTO captions (id, frame_id, media_id, text, model, created_at, updated_at, created_by) VALUES (?, ?, ?, ?, 'm', ?, ?, 'model')`,
  );
  const insObject = db.prepare(
    `INSERT INTO detected_objects (id, frame_id, media_id, type, label, polygon, model, created_at, updated_at) VALUES (?, ?, ?, ?, ?, '[]', 'm', ?, ?)`,
  );
  const insTag = db.prepare(
    `INSERT OR IGNORE INTO media_tags (media_id, dataset_id, grp, value) VALUES (?, ?, 'g', ?)`,
  );
  const mediaIds: string[] = [];
  const writer = sqliteTextIndexWriter(db);
  const batch = db.transaction((from: number, to: number) => {
    for (let i = from; i < to; i++) {
      const c = colls[i % colls.length];
      const id = newMediaId();
      const frameId = newMediaId();
      mediaIds.push(id);
      const root = pathLabel(c.id);
      insMedia.run(
        id,
        c.id,
        b.org.id,
        `${root}.${id}`,
        root,
        `IMG_${i}_${word()}-${word()}.jpg`,
        r() < 0.2 ? words(8) : null,
        id,
        at,
        at,
        b.user.id,
      );
      insFrame.run(frameId, id, `f-${frameId}`, at, at, b.user.id);
      insCaption.run(newMediaId(), frameId, id, `${r() < 0.9 ? 'a ' : ''}${words(6 + Math.floor(r() * 8))}`, at, at);
      for (let k = 0; k < 3; k++) insObject.run(newMediaId(), frameId, id, 'object', word(), at, at);
      if (r() < 0.2)
        for (let k = 0; k < 1 + Math.floor(r() * 3); k++)
          insObject.run(newMediaId(), frameId, id, 'text', words(1 + Math.floor(r() * 2)), at, at);
      if (r() < 0.3) for (let k = 0; k < 1 + Math.floor(r() * 3); k++) insTag.run(id, c.id, word());
      writer.reindexMedia([id]);
    }
  });
  const cacheSize = db.pragma('cache_size', { simple: true }) as number;
  db.pragma('synchronous = OFF');
  if (process.env.TEXT_INDEX_BENCH_CACHE_MB)
    db.pragma(`cache_size = -${Number(process.env.TEXT_INDEX_BENCH_CACHE_MB) * 1024}`);
  const t = performance.now();
  for (let i = 0; i < n; i += 1000) batch(i, Math.min(n, i + 1000));
  const ingestMs = performance.now() - t;
  db.pragma('synchronous = FULL');
  db.pragma(`cache_size = ${cacheSize}`); // queries run with the server's setting
  const rows = db.prepare(`SELECT count(*) FROM text_index_docs`).pluck().get();
  console.log(
    `\n  ${n} images, ${rows} index rows: inserted and indexed in ${(ingestMs / 1000).toFixed(1)} s (${((ingestMs / n) * 1000).toFixed(0)} µs per image, 1000 per transaction)`,
  );

  const queries: string[] = [];
  for (let i = 0; i < 300; i++) {
    const x = r();
    queries.push(
      x < 0.3
        ? word()
        : x < 0.6
          ? `${word()} ${word()}`
          : x < 0.8
            ? `${word()} ${word()} ${word()}`
            : vocab[Math.floor(r() * vocab.length)],
    );
  }
  queries.push('red bus in the rain', 'person', 'a person standing on the street', 'man with a dog', 'IMG_2041');
  const all = colls.map((c) => c.id);
  const measure = async (label: string, make: (q: string) => TextSearchQuery) => {
    const times: number[] = [];
    let found = 0;
    for (const q of queries) {
      const t0 = performance.now();
      found += (await b.index.search(make(q))).length;
      times.push(performance.now() - t0);
    }
    times.sort((x, y) => x - y);
    const p = (f: number) => times[Math.min(times.length - 1, Math.floor(f * times.length))].toFixed(2);
    console.log(
      `  ${label.padEnd(44)} p50 ${p(0.5)} ms  p90 ${p(0.9)}  p99 ${p(0.99)}  max ${times[times.length - 1].toFixed(1)}  (${(found / queries.length).toFixed(0)} hits)`,
    );
  };
  await measure('warm-up (all collections, limit 20)', (q) => ({ query: q, collectionIds: all, limit: 20 }));
  await measure('all collections, limit 20', (q) => ({ query: q, collectionIds: all, limit: 20 }));
  await measure('one collection of four, limit 20', (q) => ({ query: q, collectionIds: [colls[0].id], limit: 20 }));
  await measure('all collections, limit 1000', (q) => ({ query: q, collectionIds: all, limit: 1000 }));
  await measure('mediaIds: 500 items, limit 20', (q) => ({
    query: q,
    collectionIds: all,
    mediaIds: mediaIds.slice(0, 500),
    limit: 20,
  }));
  await measure(`mediaIds: ${Math.min(20_000, n)} items, limit 20`, (q) => ({
    query: q,
    collectionIds: all,
    mediaIds: mediaIds.slice(0, 20_000),
    limit: 20,
  }));

  // Write cost of the index writers: reprocessing a frame (1 caption + 3 OCR lines replaced), with and without.
  const frames = db.prepare(`SELECT id FROM frames ORDER BY random() LIMIT 300`).pluck().all() as string[];
  const reprocess = async (on: Fx) => {
    const t0 = performance.now();
    for (const f of frames) await analyse(on, f, [words(10)], [words(2), words(1), words(2)]);
    return (performance.now() - t0) / frames.length;
  };
  const withIndex = await reprocess(b);
  const ignored = () => undefined;
  const bare = sqliteAnalysisStore(
    db,
    {
      vectors: { upsert: ignored, remove: ignored, removeMedia: ignored },
      text: new Proxy({} as TextIndexWriter, { get: () => ignored }),
    },
    { append: ignored },
  );
  const without = await reprocess({ ...b, s: { ...b.s, analysis: bare } });
  console.log(
    `  replaceFrameAnalysis (1 caption, 3 OCR lines; synchronous=FULL): ${withIndex.toFixed(2)} ms with the index, ${without.toFixed(2)} ms without`,
  );
  await b.s.close();
}

test.run();
