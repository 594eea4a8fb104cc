/**
 * The PostgreSQL text index (src/index/text/postgres/, migrations 050-051) on PGlite and, when installed,
 * Debian's PostgreSQL 15 (no pgvector: text search must not need it). The same library is built through the
 * SQLite Storage API and copied row by row into PostgreSQL, whose triggers index it; then one query must give
 * the same hits, in the same order, with the same bm25, scores, words matched and fields on both engines.
 * The triggers are proven on every kind of change the stores make (plain SQL here, as the PostgreSQL stores
 * are written elsewhere): after each, the index holds exactly the live text and the word counts agree.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { newMediaId, newUuid } from '../../../src/platform/ids.js';
import type { PgDb } from '../../../src/platform/pgDb.js';
import { seededRandom } from '../../../src/platform/random.js';
import { pgTextIndex } from '../../../src/index/text/postgres/pgTextIndex.js';
import { Stemmer } from '../../../src/index/text/sqlite/stemmer.js';
import type { TextHit, TextIndex, TextSearchQuery } from '../../../src/index/text/textIndex.js';
import { openPostgresStorage } from '../../../src/storage/postgres/index.js';
import type { Storage } from '../../../src/storage/storage.js';
import { freshSchema, pglite, type TestPostgres } from '../../helpers/pglite.js';
import { postgresServer, postgresServerMissing } from '../../helpers/postgresServer.js';
import { addItem, itemsOf, keys, newCollection, newLibrary, open, type Fx } from './fixture.js';
import { assertPgInStep, copyLibrary, openTextSchema } from './pgFixture.js';
import { textIndexSuite } from './suite.js';

/** Scores agree within this (both sides compute in doubles from the same counts; only summation order differs). */
const EPS = 1e-9;

const VOCAB = [
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
  'café',
  'naïve',
  'generous',
  'generate',
  'skies',
  'dying',
  'happiness',
  'relational',
  'photography',
  'children',
  'child',
  'geese',
  'mice',
  '2041',
  'mp3',
  '12e3abc',
  'is',
  'os',
  'Ærø',
  'Strasse',
  'łódź',
  'Δelta',
  '東京',
  'IMG_2041_beach-party',
  'x2',
  'ties',
  'cries',
  'ponies',
];

/** A library with every kind of indexed text, in two collections, some of it deleted or superseded. */
async function buildLibrary(fx: Fx, seed: number): Promise<{ other: string }> {
  const other = await newCollection(fx.s, fx.org.id, fx.user.id);
  const r = seededRandom(seed);
  const pick = (k: number) => Array.from({ length: k }, () => VOCAB[Math.floor(r() * VOCAB.length)]).join(' ');
  for (let i = 0; i < 30; i++) {
    const item = await addItem(fx, {
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
    if (i % 7 === 3) await fx.s.media.softDelete(item.id, fx.user.id);
  }
  return { other: other.id };
}

const QUERIES = [
  'beach',
  'dog beach',
  'buses',
  'bus',
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
  'cafe',
  'CAFÉ naive',
  'generous',
  'generation',
  'sky',
  'die',
  'happy',
  'photographs',
  'child',
  'goose',
  'mouse',
  '2041',
  'mp3',
  '12e3abc',
  'aerø',
  'strasse',
  'straße',
  'lodz',
  'δelta',
  '東京',
  'img_2041',
  'beach-party',
  'x2 ties',
  'cry',
  'pony',
  'is os',
  'the',
  'rela',
  'phot',
];

function compare(a: TextHit[], b: TextHit[], what: string): void {
  assert.equal(
    b.map((h) => `${h.mediaId}/${h.frameId ?? '-'}`),
    a.map((h) => `${h.mediaId}/${h.frameId ?? '-'}`),
    `${what}: the same hits in the same order`,
  );
  a.forEach((h, i) => {
    const o = b[i];
    assert.ok(Math.abs(h.score - o.score) <= EPS, `${what}: score ${h.score} vs ${o.score}`);
    assert.ok(Math.abs(h.bm25 - o.bm25) <= EPS, `${what}: bm25 ${h.bm25} vs ${o.bm25}`);
    assert.equal(
      [o.termsMatched, o.termsTotal, o.matchedFields, o.collectionId],
      [h.termsMatched, h.termsTotal, h.matchedFields, h.collectionId],
      `${what}: words, fields, collection`,
    );
  });
}

async function servers(): Promise<Array<[string, () => Promise<TestPostgres>]>> {
  const out: Array<[string, () => Promise<TestPostgres>]> = [['pglite', pglite]];
  const missing = postgresServerMissing();
  if (missing) console.log(`SKIP text index on Debian's PostgreSQL: ${missing}`);
  else out.push(['postgres-server', postgresServer]);
  return out;
}

/** The PostgreSQL stores the contract suite writes through, when one is still a placeholder. */
async function storesMissing(s: Storage): Promise<string | null> {
  const calls: Array<[string, () => Promise<unknown>]> = [
    ['media', () => s.media.frames([])],
    ['analysis', () => s.analysis.framesOf(newMediaId())],
  ];
  for (const [part, call] of calls) {
    try {
      await call();
    } catch (err) {
      if (/not implemented yet/.test(String(err))) return part;
    }
  }
  return null;
}

/** A library in a schema of its own through the PostgreSQL Storage, with its text index. */
const pgLibrary = (server: () => Promise<TestPostgres>) => async () => {
  const s = await openPostgresStorage((await server()).url, { schema: freshSchema('text'), vectorSearch: false });
  return {
    ...(await newLibrary(s)),
    s,
    index: s.indexes.text,
    assertInStep: () => assertPgInStep(s.db),
    close: () => s.close(),
  };
};

// Every server probed before any suite runs (uvu starts a suite as soon as it is registered).
const engines: Array<[string, () => Promise<TestPostgres>, string | null]> = [];
for (const [name, server] of await servers()) {
  const probe = await pgLibrary(server)();
  engines.push([name, server, await storesMissing(probe.s)]);
  await probe.close();
}

for (const [name, server, missing] of engines) {
  // The engine-neutral contract through the PostgreSQL Storage (once its media and analysis stores exist).
  if (missing)
    console.log(`SKIP text index contract suite on PostgreSQL (${name}): the ${missing} store is not written yet`);
  else textIndexSuite(`postgres, ${name}`, pgLibrary(server));

  const test = suite(`text index on PostgreSQL (${name})`);
  let fx: Fx;
  let pg: PgDb;
  let index: TextIndex;
  test.before.each(async () => {
    fx = await open();
    pg = await openTextSchema((await server()).url);
    index = pgTextIndex(pg);
  });
  test.after.each(async () => {
    await assertPgInStep(pg);
    await pg.close();
    await fx.s.close();
  });

  const both = async (q: TextSearchQuery) => [await fx.index.search(q), await index.search(q)] as const;

  test('terms: the same words as SQLite makes of the vocabulary', async () => {
    const stemmer = new Stemmer();
    const words = [...new Set(VOCAB.flatMap((w) => Stemmer.words(w.toLowerCase())))];
    const rows = await pg.many<{ terms: string[] }>(
      `SELECT text_index_terms(w) AS terms FROM unnest($1::text[]) WITH ORDINALITY u(w, n) ORDER BY n`,
      [words],
    );
    assert.equal(
      Object.fromEntries(words.map((w, i) => [w, rows[i].terms])),
      Object.fromEntries(words.map((w, i) => [w, stemmer.terms(words)[i]])),
    );
  });

  test('one query, the same hits, order and scores on both engines', async () => {
    const { other } = await buildLibrary(fx, 11);
    await copyLibrary(fx.s.db, pg);
    let found = 0;
    for (const collectionIds of [[fx.coll.id], [fx.coll.id, other], [other]]) {
      for (const query of QUERIES) {
        for (const prefix of [true, false]) {
          const [a, b] = await both({ query, collectionIds, limit: 100, prefix });
          compare(a, b, `${query} (prefix ${prefix}) in ${collectionIds.length}`);
          found += a.length;
        }
      }
    }
    assert.ok(found > 500, `the fixture has matches (${found})`);
    for (const limit of [1, 3, 10]) {
      const [a, b] = await both({ query: 'beach dog', collectionIds: [fx.coll.id, other], limit });
      compare(a, b, `limit ${limit}`);
    }
    const some = (await fx.index.search({ query: 'beach', collectionIds: [fx.coll.id], limit: 100 })).map(
      (h) => h.mediaId,
    );
    const mediaIds = [...some.slice(0, 3), newMediaId()];
    const [a, b] = await both({ query: 'beach dog', collectionIds: [fx.coll.id], mediaIds, limit: 100 });
    compare(a, b, 'mediaIds');
    assert.ok(b.length > 0 && b.every((h) => mediaIds.includes(h.mediaId)), 'only the items listed');
    assert.equal(await index.search({ query: 'beach', collectionIds: [], limit: 10 }), []);
    assert.equal(await index.search({ query: 'beach', collectionIds: [newUuid()], limit: 10 }), []);
    assert.equal(await index.search({ query: 'beach', collectionIds: [fx.coll.id], mediaIds: [], limit: 10 }), []);
  });

  test('hostile queries never throw', async () => {
    await addItem(fx, { name: 'near-and-or.jpg', frames: [{ captions: ["a bus stop sign, it's O'Brien\\"] }] });
    await copyLibrary(fx.s.db, pg);
    for (const query of ['"', "'", "o'brien", '\\', ':*', '!bus', 'bus & stop', 'bus | stop', '(bus', '🚌 bus', '']) {
      const [a, b] = await both({ query, collectionIds: [fx.coll.id], limit: 10 });
      compare(a, b, JSON.stringify(query));
    }
    assert.is((await index.search({ query: 'a'.repeat(10_000), collectionIds: [fx.coll.id], limit: 10 })).length, 0);
  });

  test('triggers: every change the stores make keeps the index in step', async () => {
    const a = await addItem(fx, {
      name: 'holiday.jpg',
      metadata: { description: 'Sunset over the Tagus', tags: { place: ['Lisbon'] } },
      frames: [{ captions: ['a yellow taxi'], ocr: ['DINER'] }, { captions: ['a chase scene'] }],
    });
    const b = await addItem(fx, { frames: [{ captions: ['another taxi'] }] });
    const other = await newCollection(fx.s, fx.org.id, fx.user.id);
    await copyLibrary(fx.s.db, pg);
    const [f0, f1] = a.frameIds;
    const find = async (query: string, collectionIds = [fx.coll.id]) =>
      keys(await index.search({ query, collectionIds, limit: 50, prefix: false }));
    const run = async (sql: string, ...params: unknown[]) => {
      await pg.query(sql, params);
      await assertPgInStep(pg);
    };
    assert.equal(await find('tagus lisbon'), [`${a.id}/-`]);
    assert.equal(
      itemsOf(await index.search({ query: 'taxi', collectionIds: [fx.coll.id], limit: 9 })),
      [a.id, b.id].sort(),
    );

    await run(`UPDATE media SET name = 'lighthouse.jpg', description = 'Morning fog' WHERE id = $1`, a.id);
    assert.equal([await find('holiday'), await find('tagus'), await find('fog lighthouse')], [[], [], [`${a.id}/-`]]);
    await run(`DELETE FROM media_tags WHERE media_id = $1`, a.id);
    assert.equal(await find('lisbon'), []);
    await run(
      `INSERT INTO media_tags (media_id, dataset_id, grp, value) VALUES ($1, $2, 'place', 'Porto')`,
      a.id,
      fx.coll.id,
    );
    assert.equal(await find('porto'), [`${a.id}/-`]);
    await run(`UPDATE media_tags SET value = 'Braga' WHERE media_id = $1`, a.id);
    assert.equal([await find('porto'), await find('braga')], [[], [`${a.id}/-`]]);

    await run(`UPDATE captions SET text = 'a green tram' WHERE frame_id = $1`, f0);
    assert.equal([await find('taxi'), await find('tram')], [[`${b.id}/${b.frameIds[0]}`], [`${a.id}/${f0}`]]);
    await run(`UPDATE captions SET status = 'deleted' WHERE frame_id = $1`, f0);
    assert.equal(await find('tram'), []);
    await run(`DELETE FROM captions WHERE frame_id = $1`, f1);
    assert.equal(await find('chase'), []);
    await run(
      `INSERT INTO captions (id, frame_id, media_id, text, model, source, created_at, updated_at, created_by)
       VALUES ($1, $2, $3, 'a red kite', 'user', 'user', now(), now(), 'u')`,
      newMediaId(),
      f1,
      a.id,
    );
    assert.equal(await find('kite'), [`${a.id}/${f1}`]);

    await run(`UPDATE detected_objects SET label = 'BAKERY' WHERE media_id = $1 AND type = 'text'`, a.id);
    assert.equal([await find('diner'), await find('bakery')], [[], [`${a.id}/${f0}`]]);
    await run(`UPDATE detected_objects SET type = 'object' WHERE media_id = $1 AND label = 'BAKERY'`, a.id);
    assert.equal(await find('bakery'), []);
    await run(`UPDATE detected_objects SET type = 'text' WHERE media_id = $1 AND label = 'zebra'`, a.id);
    assert.equal(await find('zebra'), [`${a.id}/${f0}`, `${a.id}/${f1}`].sort(), 'a box becomes text');
    await run(`UPDATE detected_objects SET status = 'deleted' WHERE media_id = $1 AND label = 'zebra'`, a.id);
    assert.equal(await find('zebra'), []);
    await run(`DELETE FROM detected_objects WHERE media_id = $1`, a.id);

    await run(`UPDATE frames SET status = 'deleted' WHERE id = $1`, f1);
    assert.equal(await find('kite'), []);
    await run(`UPDATE frames SET status = 'active' WHERE id = $1`, f1);
    assert.equal(await find('kite'), [`${a.id}/${f1}`]);

    await run(`UPDATE media SET status = 'deleted' WHERE id = $1`, a.id);
    assert.equal([await find('kite'), await find('fog')], [[], []]);
    await run(`UPDATE media SET status = 'active' WHERE id = $1`, a.id);
    assert.equal([await find('kite'), await find('braga')], [[`${a.id}/${f1}`], [`${a.id}/-`]]);
    await run(`UPDATE media SET is_current = false WHERE id = $1`, a.id);
    assert.equal(await find('kite'), []);
    await run(`UPDATE media SET is_current = true, dataset_id = $2 WHERE id = $1`, a.id, other.id);
    assert.equal([await find('kite'), await find('kite', [other.id])], [[], [`${a.id}/${f1}`]]);
    await run(`UPDATE media SET type = 'folder' WHERE id = $1`, a.id);
    assert.equal(await find('braga', [other.id]), []);
    await run(`UPDATE media SET type = 'video' WHERE id = $1`, a.id);

    await run(`SELECT text_index_compact()`);
    const deltas = await pg.one<{ n: number }>(`SELECT count(*)::int AS n FROM text_index_word_deltas`);
    assert.is(deltas!.n, 0, 'the deltas folded into the counts');
    for (const t of ['captions', 'detected_objects', 'media_tags', 'frames', 'media'])
      await run(`DELETE FROM ${t} WHERE ${t === 'media' ? 'id' : 'media_id'} = $1`, b.id);
    assert.equal(await find('taxi'), []);
  });

  if (name === 'postgres-server')
    test('concurrent writers of the same words all commit (no shared counter row), and the counts stay right', async () => {
      await addItem(fx, { frames: Array.from({ length: 8 }, () => ({ captions: ['a red bus'] })) });
      await copyLibrary(fx.s.db, pg);
      const frames = (await pg.many<{ id: string; media_id: string }>(`SELECT id, media_id FROM frames`)).map((f) => [
        f.id,
        f.media_id,
      ]);
      // Four connections, each a transaction writing captions with the same words in opposite orders (a
      // shared counter row would be locked by the first and waited on, or deadlock): all commit.
      const words = ['red', 'bus', 'beach', 'dog', 'sunset', 'harbour'];
      await Promise.all(
        [0, 1, 2, 3].map((w) =>
          pg.tx(async (tx) => {
            for (let i = 0; i < 12; i++) {
              const [frameId, mediaId] = frames[(w + i) % frames.length];
              const text = (w % 2 ? [...words].reverse() : words).slice(i % 3).join(' ');
              await tx.query(
                `INSERT INTO captions (id, frame_id, media_id, text, model, created_at, updated_at, created_by)
                 VALUES ($1, $2, $3, $4, 'm', now(), now(), 'u')`,
                [newMediaId(), frameId, mediaId, text],
              );
              await tx.query(`SELECT pg_sleep(0.005)`);
            }
          }),
        ),
      );
      const [hit] = await index.search({ query: 'harbour', collectionIds: [fx.coll.id], limit: 1 });
      assert.ok(hit, 'the captions written are found');
    });

  test.run();
}
