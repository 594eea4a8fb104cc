/**
 * Every store write that changes what the text index holds tells its writer
 * (src/index/text/sqlite/writer.ts), inside the same transaction. After each
 * write below the index must hold exactly the live text (assertInStep: it
 * fails as soon as a write site forgets the writer) and searches must follow;
 * writes that change nothing searchable must leave the index's rows alone
 * (same rowids), as the triggers the writer replaced did.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { newMediaId } from '../../../src/platform/ids.js';
import type { Db } from '../../../src/storage/sqlite/database.js';
import { addItem, analyse, assertInStep, itemsOf, keys, newFolder, open, search, type Fx } from './fixture.js';

const test = suite('text index: every write site tells the writer');
let fx: Fx;
test.before.each(async () => {
  fx = await open();
});
test.after.each(async () => {
  await fx.s.close();
});

/** The index's rows, rowid and what each is about, in rowid order. */
const indexRows = (db: Db) => db.prepare(`SELECT id, kind, source FROM text_index_docs ORDER BY id`).all();

test('rename: the item row follows; an update changing nothing searchable keeps its rows', async () => {
  const a = await addItem(fx, { name: 'harbour.jpg', metadata: { description: 'boats', tags: { place: ['Oslo'] } } });
  await fx.s.media.update(a.id, { name: 'marina.jpg' }, fx.user.id);
  assertInStep(fx.s.db);
  assert.equal(await search(fx, 'harbour'), []);
  assert.equal(keys(await search(fx, 'marina')), [`${a.id}/-`]);
  const before = indexRows(fx.s.db);
  await fx.s.media.update(a.id, { name: 'marina.jpg' }, fx.user.id);
  await fx.s.media.setProcessingStatus(a.id, 'ready', null);
  const tagsOnly = before.filter((r) => (r as { kind: string }).kind !== 'tag');
  assert.equal(
    indexRows(fx.s.db).filter((r) => (r as { kind: string }).kind !== 'tag'),
    tagsOnly,
    'same name and description: the item row is not rewritten',
  );
  assertInStep(fx.s.db);
});

test('tags added and removed', async () => {
  const a = await addItem(fx);
  await fx.s.media.mutateMetadata(a.id, fx.user.id, (m) => ({ ...m, tags: { people: ['Ana', 'Rui'] } }));
  assertInStep(fx.s.db);
  assert.equal(keys(await search(fx, 'ana')), [`${a.id}/-`]);
  await fx.s.media.mutateMetadata(a.id, fx.user.id, (m) => ({ ...m, tags: { people: ['Rui'] } }));
  assertInStep(fx.s.db);
  assert.equal(await search(fx, 'ana'), []);
  assert.equal(keys(await search(fx, 'rui')), [`${a.id}/-`]);
});

test('captions: replaced by reprocessing, added by the user; OCR corrected and deleted', async () => {
  const a = await addItem(fx, { frames: [{ captions: ['a red tram'], ocr: ['BAKERY'] }] });
  const [frameId] = a.frameIds;
  await analyse(fx, frameId, ['a yellow tram'], ['BUTCHER']);
  assertInStep(fx.s.db);
  assert.equal(await search(fx, 'red'), []);
  assert.equal(await search(fx, 'bakery'), []);
  assert.equal(keys(await search(fx, 'yellow')), [`${a.id}/${frameId}`]);
  await fx.s.analysis.addUserCaption(frameId, { id: newMediaId(), text: 'grandma waving', model: 'user' }, fx.user.id);
  assertInStep(fx.s.db);
  assert.equal(keys(await search(fx, 'grandma')), [`${a.id}/${frameId}`]);
  const ocr = (await fx.s.media.frames([a.id])).get(a.id)![0].objects.find((o) => o.type === 'text')!;
  await fx.s.analysis.correctObject(ocr.id, { label: 'FISHMONGER' });
  assertInStep(fx.s.db);
  assert.equal(await search(fx, 'butcher'), []);
  assert.equal(keys(await search(fx, 'fishmonger')), [`${a.id}/${frameId}`]);
  await fx.s.analysis.correctObject(ocr.id, { deleted: true });
  assertInStep(fx.s.db);
  assert.equal(await search(fx, 'fishmonger'), []);
});

test('frames no longer sampled (syncFrames) take their text with them', async () => {
  const a = await addItem(fx, { frames: [{ captions: ['a heron'] }, { captions: ['a stork'] }] });
  const [kept] = (await fx.s.analysis.framesOf(a.id)).slice(0, 1);
  await fx.s.analysis.syncFrames(a.id, [{ ...kept, id: newMediaId() }], fx.user.id);
  assertInStep(fx.s.db);
  assert.equal(keys(await search(fx, 'heron')), [`${a.id}/${kept.id}`]);
  assert.equal(await search(fx, 'stork'), []);
});

test('soft delete: an item with its versions, a folder with its subtree', async () => {
  const original = await addItem(fx, { name: 'pier.jpg', frames: [{ captions: ['a pier'] }] });
  await addItem(fx, { name: 'pier edit.jpg', rootId: original.id });
  const folder = await newFolder(fx, 'Coast');
  const inside = await addItem(fx, { parentPath: folder.path, frames: [{ captions: ['a cliff'], ocr: ['DANGER'] }] });
  const sub = await newFolder(fx, 'Rocks', folder.path);
  const deeper = await addItem(fx, { parentPath: sub.path, metadata: { tags: { kind: ['cliff'] } } });
  assert.equal(itemsOf(await search(fx, 'cliff')), [inside.id, deeper.id].sort());
  await fx.s.media.softDelete(original.id, fx.user.id);
  assertInStep(fx.s.db);
  assert.equal(await search(fx, 'pier'), []);
  await fx.s.media.softDelete(folder.id, fx.user.id);
  assertInStep(fx.s.db);
  assert.equal(await search(fx, 'cliff'), []);
  assert.equal(await search(fx, 'danger'), []);
});

test('move (an item, a folder subtree) changes nothing indexed: the same rows, still found', async () => {
  const folder = await newFolder(fx, 'Trips');
  const a = await addItem(fx, {
    parentPath: folder.path,
    name: 'canyon.jpg',
    metadata: { tags: { place: ['Utah'] } },
    frames: [{ captions: ['a canyon at dusk'], ocr: ['EXIT 12'] }],
  });
  const other = await newFolder(fx, 'Elsewhere');
  const before = indexRows(fx.s.db);
  await fx.s.media.move(a.id, other.path, fx.user.id);
  await fx.s.media.move(folder.id, other.path, fx.user.id);
  assert.equal(indexRows(fx.s.db), before);
  assertInStep(fx.s.db);
  assert.equal(itemsOf(await search(fx, 'canyon utah')), [a.id]);
});

test('versions: the current one is indexed as selection and deletion change it', async () => {
  const original = await addItem(fx, { name: 'reef.jpg', metadata: { tags: { sea: ['coral'] } } });
  const edit = await addItem(fx, { name: 'reef bright.jpg', rootId: original.id });
  assertInStep(fx.s.db);
  assert.equal(itemsOf(await search(fx, 'reef')), [edit.id]);
  await fx.s.media.selectVersion(original.id, fx.user.id);
  assertInStep(fx.s.db);
  assert.equal(itemsOf(await search(fx, 'coral')), [original.id]);
  await fx.s.media.selectVersion(original.id, fx.user.id);
  assertInStep(fx.s.db);
  await fx.s.media.deleteVersion(original.id, original.id, fx.user.id);
  assertInStep(fx.s.db);
  assert.equal(itemsOf(await search(fx, 'reef')), [edit.id]);
});

test.run();
