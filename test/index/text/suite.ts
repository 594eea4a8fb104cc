/**
 * The text index's contract, engine by engine (run by textIndex.test.ts on SQLite's FTS5 index and by
 * pgTextIndex.test.ts on PostgreSQL's): rows are written only through the Storage interface, so these tests
 * prove each engine keeps its index in step with every write path (the engine's assertInStep after each
 * test): stemming, OCR-only words pointing at their frame, file names, tags, descriptions, renames, deletes,
 * versions, reprocessing, user corrections, frame resampling; collection and item filters; hostile queries;
 * scores; limits.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { newMediaId, newUuid, pathLabel } from '../../../src/platform/ids.js';
import type { Storage } from '../../../src/storage/storage.js';
import { addItem, analyse, itemsOf, keys, newCollection, newFolder, search, type Fx } from './fixture.js';

/** A library on one engine and its text index, with that engine's own checks. */
export interface EngineFx extends Fx<Storage> {
  /** Throws unless the index holds exactly the live text (the engine's own tables). */
  assertInStep(): Promise<void>;
  close(): Promise<void>;
}

/** The engine-neutral text index tests against the libraries `openFx` makes (one per test). */
export function textIndexSuite(name: string, openFx: () => Promise<EngineFx>): void {
  const test = suite(`text index (${name})`);
  let fx: EngineFx;
  test.before.each(async () => {
    fx = await openFx();
  });
  test.after.each(async () => {
    try {
      await fx.assertInStep();
    } finally {
      await fx.close();
    }
  });

  test('stemming: plural and singular, verb forms', async () => {
    const bus = await addItem(fx, { frames: [{ captions: ['Two buses parked by the road'] }] });
    const one = await addItem(fx, { frames: [{ captions: ['a red bus'] }] });
    const dog = await addItem(fx, { frames: [{ captions: ['a dog running on the beach'] }] });
    const knives = await addItem(fx, { frames: [{ captions: ['three knives on a table'] }] });
    assert.equal(itemsOf(await search(fx, 'bus')), [bus.id, one.id].sort(), '"bus" finds "buses"');
    assert.equal(itemsOf(await search(fx, 'buses')), [bus.id, one.id].sort(), '"buses" finds "bus"');
    assert.equal(itemsOf(await search(fx, 'runs')), [dog.id]);
    assert.equal(itemsOf(await search(fx, 'run')), [dog.id]);
    assert.equal(itemsOf(await search(fx, 'knife')), [knives.id]);
    assert.equal(itemsOf(await search(fx, 'BEACHES')), [dog.id], 'case and plural');
    const [hit] = await search(fx, 'bus', { prefix: false });
    assert.equal(hit.matchedFields, ['caption']);
    assert.is(hit.termsMatched, 1);
  });

  test('an OCR-only word is found and points at its frame', async () => {
    const video = await addItem(fx, {
      frames: [
        { captions: ['a harbour at dusk'] },
        { captions: ['an island prison'], ocr: ['WELCOME TO', 'ALCATRAZ'] },
        { captions: ['a boat'] },
      ],
    });
    const hits = await search(fx, 'alcatraz');
    assert.equal(keys(hits), [`${video.id}/${video.frameIds[1]}`]);
    assert.equal(hits[0].matchedFields, ['ocr']);
    assert.ok(hits[0].score >= 0.6, `a full match scores at least 0.6 (${hits[0].score})`);
    assert.equal(keys(await search(fx, 'welcome')), [`${video.id}/${video.frameIds[1]}`]);
    assert.equal(await search(fx, 'zebra'), [], 'labels of non-text objects are not indexed');
  });

  test('file-name words are found: separators split them', async () => {
    const a = await addItem(fx, { name: 'IMG_2041_beach-party.jpg', frames: [{ captions: ['people on sand'] }] });
    for (const q of ['beach', 'party', '2041', 'beach party', 'img_2041']) {
      const hits = await search(fx, q);
      assert.equal(keys(hits), [`${a.id}/-`], q);
      assert.equal(hits[0].matchedFields, ['name']);
    }
    // A frame hit also counts its item's own words: "party" from the name, "sand" from the caption.
    const [best] = await search(fx, 'party sand');
    assert.equal([best.frameId, best.termsMatched, best.matchedFields], [a.frameIds[0], 2, ['caption', 'name']]);
  });

  test('tag values are found, and follow metadata edits', async () => {
    const a = await addItem(fx, { metadata: { tags: { place: ['Lisbon', 'Old Town'], people: ['Ana'] } } });
    const hits = await search(fx, 'lisbon');
    assert.equal(keys(hits), [`${a.id}/-`]);
    assert.equal(hits[0].matchedFields, ['tag']);
    assert.equal(keys(await search(fx, 'old town')), [`${a.id}/-`]);
    await fx.s.media.mutateMetadata(a.id, fx.user.id, (m) => ({ ...m, tags: { place: ['Porto'] } }));
    assert.equal(await search(fx, 'lisbon'), [], 'removed tag gone');
    assert.equal(await search(fx, 'ana'), []);
    assert.equal(keys(await search(fx, 'porto')), [`${a.id}/-`], 'new tag found');
  });

  test('descriptions and names are found, and follow updates', async () => {
    const a = await addItem(fx, { name: 'holiday.jpg', metadata: { description: 'Sunset over the Tagus river' } });
    const hits = await search(fx, 'tagus');
    assert.equal(keys(hits), [`${a.id}/-`]);
    assert.equal(hits[0].matchedFields, ['description']);
    await fx.s.media.update(a.id, { name: 'lighthouse.jpg', metadata: { description: 'Morning fog' } }, fx.user.id);
    assert.equal(await search(fx, 'tagus'), [], 'old description gone');
    assert.equal(await search(fx, 'holiday'), [], 'old name gone');
    assert.equal(keys(await search(fx, 'fog')), [`${a.id}/-`]);
    assert.equal(keys(await search(fx, 'lighthouse')), [`${a.id}/-`]);
  });

  test('deleted items are gone (their frames too); folders are not indexed', async () => {
    const a = await addItem(fx, { name: 'kayak.jpg', frames: [{ captions: ['a kayak'], ocr: ['RENTALS'] }] });
    const b = await addItem(fx, { frames: [{ captions: ['another kayak'] }] });
    await fx.s.media.softDelete(a.id, fx.user.id);
    assert.equal(itemsOf(await search(fx, 'kayak')), [b.id]);
    assert.equal(await search(fx, 'rentals'), []);
    const folder = { folder: await newFolder(fx, 'Kayak trips') };
    assert.not.ok((await search(fx, 'trips')).length, 'folder names are not indexed');
    const inside = await fx.s.media.insert(
      {
        id: newMediaId(),
        collectionId: fx.coll.id,
        organizationId: fx.org.id,
        parentPath: folder.folder.path,
        type: 'image',
        name: 'paddle.jpg',
        blobKey: 'blob-paddle',
        mimeType: 'image/jpeg',
        width: 1,
        height: 1,
        duration: null,
        sizeBytes: 1,
        exif: {},
        metadata: {},
        processingStatus: 'ready',
        createdById: fx.user.id,
      },
      [],
    );
    assert.equal(itemsOf(await search(fx, 'paddle')), [inside.id]);
    await fx.s.media.move(inside.id, pathLabel(fx.coll.id), fx.user.id);
    assert.equal(itemsOf(await search(fx, 'paddle')), [inside.id], 'moving keeps it');
    await fx.s.media.softDelete(folder.folder.id, fx.user.id);
    assert.equal(itemsOf(await search(fx, 'paddle')), [inside.id], 'moved out before the folder was deleted');
  });

  test('only the current version is found', async () => {
    const original = await addItem(fx, {
      name: 'canyon.jpg',
      frames: [{ captions: ['a red canyon'] }],
      metadata: { tags: { mood: ['epic'] } },
    });
    const edit = await addItem(fx, {
      name: 'canyon-edit.jpg',
      rootId: original.id,
      frames: [{ captions: ['a red canyon in black and white'] }],
      metadata: { tags: { mood: ['epic'] } },
    });
    assert.equal(itemsOf(await search(fx, 'canyon')), [edit.id], 'the new version replaces the original');
    assert.equal(itemsOf(await search(fx, 'epic')), [edit.id]);
    assert.equal(await search(fx, 'black white', { prefix: false }).then((h) => itemsOf(h)), [edit.id]);
    await fx.s.media.selectVersion(original.id, fx.user.id);
    assert.equal(itemsOf(await search(fx, 'canyon')), [original.id], 'selecting the original brings it back');
    assert.equal(await search(fx, 'black white'), []);
    await fx.s.media.selectVersion(edit.id, fx.user.id);
    await fx.s.media.deleteVersion(original.id, edit.id, fx.user.id);
    assert.equal(itemsOf(await search(fx, 'canyon')), [original.id], 'deleting the current version promotes the other');
  });

  test("reprocessing replaces model captions and OCR; the user's captions and corrections stay", async () => {
    const a = await addItem(fx, { frames: [{ captions: ['a yellow taxi'], ocr: ['DINER'] }] });
    const frameId = a.frameIds[0];
    await fx.s.analysis.addUserCaption(
      frameId,
      { id: newMediaId(), text: 'grandpa Joaquim driving', model: 'user' },
      fx.user.id,
    );
    assert.equal(itemsOf(await search(fx, 'joaquim')), [a.id]);
    await analyse(fx, frameId, ['a green tram'], ['BAKERY']);
    assert.equal(await search(fx, 'taxi'), [], 'old caption words gone');
    assert.equal(await search(fx, 'diner'), [], 'old OCR words gone');
    assert.equal(itemsOf(await search(fx, 'tram')), [a.id]);
    assert.equal(itemsOf(await search(fx, 'bakery')), [a.id]);
    assert.equal(itemsOf(await search(fx, 'joaquim')), [a.id], 'the user caption survives reprocessing');
    await analyse(fx, frameId, ['a green tram'], ['BAKERY']);
    assert.is((await search(fx, 'tram')).length, 1, 'reprocessing twice leaves no duplicate');

    // Corrections: relabelling an OCR object, deleting one.
    const ocr = (await fx.s.media.frames([a.id])).get(a.id)![0].objects.find((o) => o.type === 'text')!;
    await fx.s.analysis.correctObject(ocr.id, { label: 'BUTCHER' });
    assert.equal(await search(fx, 'bakery'), []);
    assert.equal(itemsOf(await search(fx, 'butcher')), [a.id]);
    await fx.s.analysis.correctObject(ocr.id, { deleted: true });
    assert.equal(await search(fx, 'butcher'), []);
  });

  test('frames no longer sampled take their text with them', async () => {
    const video = await addItem(fx, { frames: [{ captions: ['opening titles'] }, { captions: ['a chase scene'] }] });
    const frames = await fx.s.analysis.framesOf(video.id);
    await fx.s.analysis.syncFrames(
      video.id,
      [{ id: newMediaId(), timestamp: frames[0].timestamp, blobKey: 'x', width: 1, height: 1 }],
      fx.user.id,
    );
    assert.equal(
      keys(await search(fx, 'titles')),
      [`${video.id}/${video.frameIds[0]}`],
      'the kept frame keeps its text',
    );
    assert.equal(await search(fx, 'chase'), []);
  });

  test('collections: only the ones asked for', async () => {
    const other = await newCollection(fx.s, fx.org.id, fx.user.id);
    const a = await addItem(fx, { frames: [{ captions: ['a lighthouse'] }] });
    const b = await addItem(fx, { coll: other, frames: [{ captions: ['a lighthouse'] }] });
    assert.equal(itemsOf(await search(fx, 'lighthouse')), [a.id]);
    assert.equal(itemsOf(await search(fx, 'lighthouse', { collectionIds: [other.id] })), [b.id]);
    assert.equal(
      itemsOf(await search(fx, 'lighthouse', { collectionIds: [fx.coll.id, other.id] })),
      [a.id, b.id].sort(),
    );
    assert.equal(await search(fx, 'lighthouse', { collectionIds: [] }), []);
    assert.equal(await search(fx, 'lighthouse', { collectionIds: [newUuid()] }), []);
    const [hit] = await search(fx, 'lighthouse', { collectionIds: [other.id] });
    assert.is(hit.collectionId, other.id);
  });

  test('mediaIds: only those items', async () => {
    const a = await addItem(fx, { name: 'meadow.jpg', frames: [{ captions: ['horses in a meadow'] }] });
    const b = await addItem(fx, { frames: [{ captions: ['a meadow'] }] });
    await addItem(fx, { frames: [{ captions: ['a meadow at night'] }] });
    assert.is(itemsOf(await search(fx, 'meadow')).length, 3);
    assert.equal(itemsOf(await search(fx, 'meadow', { mediaIds: [a.id, b.id] })), [a.id, b.id].sort());
    assert.equal(itemsOf(await search(fx, 'meadow', { mediaIds: [b.id] })), [b.id]);
    assert.equal(await search(fx, 'meadow', { mediaIds: [] }), []);
    assert.is(itemsOf(await search(fx, 'meadow', { mediaIds: null })).length, 3);
    const many = [a.id, b.id, ...Array.from({ length: 50 }, newMediaId)];
    for (const q of ['meadow horses', 'meadow', 'horse', 'meadow.jpg']) {
      const hits = await search(fx, q, { mediaIds: many, limit: 10 });
      assert.ok(hits.length > 0 && hits.every((h) => h.mediaId === a.id || h.mediaId === b.id), q);
    }
  });

  test('hostile queries never throw and still find what their words say', async () => {
    const a = await addItem(fx, { name: 'near-and-or.jpg', frames: [{ captions: ['a bus stop sign'] }] });
    const hostile = [
      '"',
      '""',
      '"bus',
      'bus"',
      '(bus',
      'bus)',
      '((',
      '))',
      'NEAR(',
      'NEAR(bus stop, 2)',
      'AND',
      'OR',
      'NOT',
      'bus NOT',
      'NOT bus',
      'bus AND',
      'OR OR OR',
      '*',
      'bus*',
      '*bus',
      ':',
      'caption:bus',
      '{caption}:bus',
      '{ocr name} : bus',
      '^bus',
      '-bus',
      '+bus',
      'bus + stop',
      "'; DROP TABLE media; --",
      '\\',
      '%',
      '_',
      '🚌',
      '🚌 bus',
      '👨‍👩‍👧',
      '\u0000bus',
      '\u200b',
      ' ',
      '',
      'a'.repeat(10_000),
      Array.from({ length: 200 }, (_, i) => `w${i}`).join(' '),
      'rowid = 1',
      'bm25(',
      'text_index',
      '[bus]',
      'bus\nstop',
      'bús',
      'BUS',
    ];
    for (const q of hostile) {
      const hits = await search(fx, q);
      assert.ok(Array.isArray(hits), q);
    }
    for (const q of [
      '"bus',
      'bus)',
      'NEAR(bus stop, 2)',
      'bus*',
      'caption:bus',
      '{ocr name} : bus',
      '🚌 bus',
      'bús',
      'BUS',
      '[bus]',
      'bus AND',
    ]) {
      assert.equal(itemsOf(await search(fx, q)), [a.id], `${JSON.stringify(q)} finds the bus`);
    }
    assert.equal(
      itemsOf(await search(fx, 'near and or', { prefix: false })),
      [a.id],
      'operator words are plain words ("near" in the name)',
    );
  });

  test('scores: 0..1, all words above some words, rarer evidence higher', async () => {
    const full = await addItem(fx, { frames: [{ captions: ['a red bus in the rain'] }] });
    const two = await addItem(fx, { frames: [{ captions: ['a red bus on a sunny day'] }] });
    const one = await addItem(fx, { frames: [{ captions: ['a red door'] }] });
    for (let i = 0; i < 5; i++) await addItem(fx, { frames: [{ captions: [`a parked car number ${i}`] }] });
    const hits = await search(fx, 'red bus in the rain');
    assert.equal(
      hits.map((h) => h.mediaId),
      [full.id, two.id, one.id],
    );
    assert.equal(
      hits.map((h) => h.termsMatched),
      [3, 2, 1],
      'stopwords (in, the) do not count',
    );
    assert.ok(hits[0].score >= 0.6 && hits[0].score <= 1);
    assert.ok(hits[1].score < hits[0].score * 0.6, 'two of three words well below all three');
    assert.ok(hits[2].score < 0.12, `one of three words is weak (${hits[2].score})`);
    // A word in every item is weak evidence, a rare one strong.
    const common = (await search(fx, 'car'))[0];
    const rare = (await search(fx, 'rain'))[0];
    assert.ok(rare.bm25 > common.bm25 && rare.score > common.score, 'rarer word, higher score');
  });

  test('prefix: the last word may be unfinished (counts half); off on request', async () => {
    const a = await addItem(fx, { frames: [{ ocr: ['ALCATRAZ'] }] });
    const [hit] = await search(fx, 'alcat');
    assert.equal([hit.mediaId, hit.termsMatched], [a.id, 0.5]);
    assert.ok(hit.score > 0.05 && hit.score < 0.3, `${hit.score}`);
    assert.equal(await search(fx, 'alcat', { prefix: false }), []);
    assert.equal(await search(fx, 'alcat '), [], 'a finished word is not a prefix');
    assert.equal(await search(fx, 'al'), [], 'too short to be a prefix');
    const [exact] = await search(fx, 'alcatraz');
    assert.is(exact.termsMatched, 1);
  });

  test('limit', async () => {
    for (let i = 0; i < 12; i++) await addItem(fx, { frames: [{ captions: [`a pelican ${i}`] }] });
    assert.is((await search(fx, 'pelican', { limit: 5 })).length, 5);
    assert.is((await search(fx, 'pelican', { limit: 0 })).length, 0);
  });

  test.run();
}
