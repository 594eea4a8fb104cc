/**
 * Part of the storage contract (called by ./suite.ts): positions, cameras and places of items (migrations
 * 033 / 066), the place filters of browse (issue #26) and the places, cameras and map listings, through the
 * Storage interface only, so both engines pass the same tests.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { newMediaId } from '../../src/platform/ids.js';
import type { Storage } from '../../src/storage/storage.js';
import type { StoredPlace } from '../../src/storage/placeStore.js';
import type { MediaRecord, NewMedia } from '../../src/storage/types.js';
import type { PlaceFilter } from '../../src/storage/placeFilter.js';
import { addItem as addMedia, query, suiteLibrary, type Fx } from './suiteLibrary.js';

const V1 = 'test@1/1';
const LISBON: StoredPlace = { city: 'Lisbon', region: 'Lisbon', country: 'Portugal', countryCode: 'PT' };
const PORTO: StoredPlace = { city: 'Porto', region: 'Porto', country: 'Portugal', countryCode: 'PT' };
const SUVA: StoredPlace = { city: 'Suva', region: 'Central', country: 'Fiji', countryCode: 'FJ' };

/** exif as upload writes it: capture facts with a position and a camera (either may be left out). */
const captured = (at: [number, number] | null, model: string | null = null, make: string | null = 'NIKON') => ({
  capture: {
    location: at ? { latitude: at[0], longitude: at[1], altitude: null, direction: null } : null,
    camera: model ? { make, model, lens: null } : null,
  },
});

/** An image at the collection's root with these exif facts. */
const addItem = (fx: Fx, exif: Record<string, unknown>, o: Partial<NewMedia> = {}): Promise<MediaRecord> =>
  addMedia(fx, fx.root, { exif, ...o });

const listed = async (fx: Fx, places: PlaceFilter | null) => {
  const { items, total } = await fx.s.media.browse(query(fx, { places }));
  const ids = await fx.s.media.browseIds(query(fx, { places }), 1000);
  assert.is(total, items.length, 'the total counts the filtered items');
  assert.equal(ids.sort(), items.map((m) => m.id).sort(), 'browseIds agrees with browse');
  return items.map((m) => m.id).sort();
};

/** Computes every pending place as `places` says (by media id). */
async function settle(fx: Fx, places: Record<string, StoredPlace | null>, version = V1): Promise<number> {
  const pending = await fx.s.places.pending(version, 1000);
  return fx.s.places.setPlaces(
    pending.map((p) => ({ ...p, place: places[p.mediaId] ?? null })),
    version,
  );
}

export function placesSuite(
  name: string,
  open: () => Promise<Storage>,
  close: (s: Storage) => Promise<void> = (s) => s.close(),
): void {
  const test = suite(`storage: ${name}: places`);
  let fx: Fx;
  test.before.each(async () => {
    fx = await suiteLibrary(await open(), 'P');
  });
  test.after.each(async () => {
    await close(fx.s);
  });

  test('positions from exif are pending until computed; a new data version computes them again', async () => {
    const a = await addItem(fx, captured([38.72, -9.14], 'D750'));
    const legacy = await addItem(fx, { latitude: 41.15, longitude: -8.61, model: 'iPhone 6' });
    await addItem(fx, captured(null, 'D750'));
    await addItem(fx, captured([200, 10]));
    await addItem(fx, {});
    const pending = await fx.s.places.pending(V1, 100);
    assert.equal(pending.map((p) => p.mediaId).sort(), [a.id, legacy.id].sort());
    assert.equal(
      pending.find((p) => p.mediaId === a.id),
      { mediaId: a.id, latitude: 38.72, longitude: -9.14 },
    );
    assert.is(await settle(fx, { [a.id]: LISBON, [legacy.id]: PORTO }), 2);
    assert.equal(await fx.s.places.pending(V1, 100), []);
    assert.is((await fx.s.places.pending('test@2/1', 100)).length, 2, 'another version recomputes');
    const got = await fx.s.media.get(a.id);
    assert.equal(got!.exif.place, { ...LISBON, latitude: 38.72, longitude: -9.14, version: V1 });
  });

  test('a changed position drops the place until it is computed again; a stale result is not stored', async () => {
    const a = await addItem(fx, captured([38.72, -9.14], 'D750'));
    const [stale] = await fx.s.places.pending(V1, 10);
    await fx.s.media.mergeExif(a.id, captured([41.15, -8.61], 'D750'));
    assert.is(await fx.s.places.setPlaces([{ ...stale, place: LISBON }], V1), 0, 'computed for the old position');
    const [fresh] = await fx.s.places.pending(V1, 10);
    assert.equal(fresh, { mediaId: a.id, latitude: 41.15, longitude: -8.61 });
    await fx.s.places.setPlaces([{ ...fresh, place: PORTO }], V1);
    await fx.s.media.mergeExif(a.id, { webVideo: null });
    assert.equal(
      (await fx.s.places.places(fx.collId, null)).places.map((p) => p.city),
      ['Porto'],
      'kept',
    );
  });

  test('country, place, camera and bbox filters, alone and together', async () => {
    const lisbon = await addItem(fx, captured([38.72, -9.14], 'D750'));
    const porto = await addItem(fx, captured([41.15, -8.61], 'iPhone 12', 'Apple'));
    const suva = await addItem(fx, captured([-18.14, 178.44], 'd750'));
    const taveuni = await addItem(fx, captured([-16.8, -179.9], 'X100'));
    const nowhere = await addItem(fx, captured(null, 'D750'));
    await settle(fx, { [lisbon.id]: LISBON, [porto.id]: PORTO, [suva.id]: SUVA, [taveuni.id]: SUVA });
    assert.equal(await listed(fx, { country: 'PT' }), [lisbon.id, porto.id].sort());
    assert.equal(await listed(fx, { place: 'lisbon' }), [lisbon.id]);
    assert.equal(await listed(fx, { camera: 'D750' }), [lisbon.id, suva.id, nowhere.id].sort(), 'any ASCII case');
    assert.equal(await listed(fx, { country: 'PT', camera: 'd750' }), [lisbon.id]);
    assert.equal(await listed(fx, { bbox: [-10, 38, -8, 42] }), [lisbon.id, porto.id].sort());
    assert.equal(await listed(fx, { bbox: [178, -20, -179, -15] }), [suva.id, taveuni.id].sort(), 'antimeridian');
    assert.equal(await listed(fx, { bbox: [170, -20, 179, -15] }), [suva.id]);
    assert.equal(await listed(fx, { located: true }), [lisbon.id, porto.id, suva.id, taveuni.id].sort());
    assert.equal(await listed(fx, { country: 'ES' }), []);
    const some = [porto.id, suva.id, nowhere.id, newMediaId()];
    assert.equal((await fx.s.places.matching(some, { camera: 'D750' })).sort(), [suva.id, nowhere.id].sort());
    assert.equal(await fx.s.places.matching(some, { country: 'PT', place: 'porto' }), [porto.id]);
    assert.is((await listed(fx, null)).length, 5);
  });

  test('places, cameras and points: live, non-archived items only, most first', async () => {
    const items = [];
    for (const at of [
      [38.72, -9.14],
      [38.73, -9.15],
      [41.15, -8.61],
      [-18.14, 178.44],
    ] as Array<[number, number]>)
      items.push(await addItem(fx, captured(at, 'D750')));
    const trashed = await addItem(fx, captured([38.72, -9.14], 'X100', 'FUJIFILM'));
    const archived = await addItem(fx, captured([38.72, -9.14], 'X100', 'FUJIFILM'));
    const [l1, l2, p, s] = items;
    await settle(fx, { [l1.id]: LISBON, [l2.id]: LISBON, [p.id]: PORTO, [s.id]: SUVA, [trashed.id]: LISBON });
    await settle(fx, { [archived.id]: LISBON });
    await fx.s.media.trash([trashed.id], fx.userId);
    await fx.s.media.setFlags([archived.id], { archived: true });
    const all = await fx.s.places.places(fx.collId, null);
    assert.equal(all.countries, [
      { countryCode: 'PT', country: 'Portugal', count: 3 },
      { countryCode: 'FJ', country: 'Fiji', count: 1 },
    ]);
    assert.equal(
      all.places.map((x) => [x.city, x.count]),
      [
        ['Lisbon', 2],
        ['Porto', 1],
        ['Suva', 1],
      ],
    );
    const lisbon = all.places[0];
    assert.ok(Math.abs(lisbon.latitude - 38.725) < 1e-9 && Math.abs(lisbon.longitude + 9.145) < 1e-9, 'mean position');
    assert.equal(lisbon.region, 'Lisbon');
    assert.equal(
      (await fx.s.places.places(fx.collId, 'FJ')).places.map((x) => x.city),
      ['Suva'],
      'narrowed to a country',
    );
    assert.equal(await fx.s.places.cameras(fx.collId), [{ make: 'NIKON', model: 'D750', count: 4 }]);
    await fx.s.media.restore([trashed.id]);
    assert.equal((await fx.s.places.cameras(fx.collId))[1], { make: 'FUJIFILM', model: 'X100', count: 1 }, 'back');
    const points = await fx.s.places.points([s.id, newMediaId(), l1.id]);
    assert.equal(points, { ids: [s.id, l1.id], latitudes: [-18.14, 38.72], longitudes: [178.44, -9.14] });
  });

  test.run();
}
