/**
 * The offline reverse geocoder (src/files/geocode/): known positions → their place, region and country;
 * open sea and the poles → none; the antimeridian from both sides; the index built in a worker thread
 * without holding the event loop; malformed data rows left out.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { buildIndex } from '../../src/files/geocode/packedIndex.js';
import {
  countryName,
  distanceKm,
  geocoderOf,
  MAX_DISTANCE_KM,
  type Geocoder,
} from '../../src/files/geocode/geocoder.js';
import { dataVersion } from '../../src/files/geocode/data.js';
import { loadGeocoder } from '../../src/files/geocode/load.js';

const t = suite<{ g: Geocoder; loadMs: number; maxGapMs: number }>('geocoder');

t.before(async (ctx) => {
  // The event loop's longest stall while the worker builds the index.
  let last = performance.now();
  let max = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    max = Math.max(max, now - last);
    last = now;
  }, 5);
  const started = performance.now();
  ctx.g = await loadGeocoder();
  ctx.loadMs = performance.now() - started;
  clearInterval(timer);
  ctx.maxGapMs = max;
});

t('known positions: the nearest place, its region and country', ({ g }) => {
  assert.equal(g.lookup(43.467448, 11.885127), {
    city: 'Arezzo',
    region: 'Tuscany',
    country: 'Italy',
    countryCode: 'IT',
  });
  assert.equal(g.lookup(64.1466, -21.9426), {
    city: 'Reykjavík',
    region: 'Capital Region',
    country: 'Iceland',
    countryCode: 'IS',
  });
  assert.equal(g.lookup(44.0604, -121.3141)?.city, 'Bend');
  assert.equal(g.lookup(44.0604, -121.3141)?.region, 'Oregon');
  const lisbon = g.lookup(38.7223, -9.1393)!;
  assert.equal([lisbon.region, lisbon.country, lisbon.countryCode], ['Lisbon', 'Portugal', 'PT']);
  assert.is(g.lookup(-33.8688, 151.2093)?.countryCode, 'AU');
});

t('open sea, the poles and impossible positions have no place', ({ g }) => {
  assert.is(g.lookup(40, -30), null, 'mid-Atlantic');
  assert.is(g.lookup(-40, -120), null, 'South Pacific');
  assert.is(g.lookup(90, 0), null, 'North Pole');
  assert.is(g.lookup(-90, 45), null, 'South Pole');
  assert.is(g.lookup(91, 0), null);
  assert.is(g.lookup(0, 181), null);
  assert.is(g.lookup(Number.NaN, 0), null);
});

t('the antimeridian: the same place from both sides', ({ g }) => {
  // Taveuni, Fiji, lies across 180°: positions just east and just west of it find the same island's places.
  const east = g.lookup(-16.8, 179.99);
  const west = g.lookup(-16.8, -179.99);
  assert.ok(east && west, 'both sides have a place');
  assert.is(east!.countryCode, 'FJ');
  assert.is(west!.countryCode, 'FJ');
  assert.equal(east, west, 'the same nearest place');
});

t('a place just beyond the radius is none, just within it is found', () => {
  const index = buildIndex(
    [{ name: 'Solo', lat: '0', lng: '0', country: 'XX', admin1: '01' }],
    [{ code: 'XX.01', name: 'Region' }],
    'test',
  );
  const g = geocoderOf(index);
  const degree = distanceKm(0, 0, 0, 1);
  assert.ok(g.lookup(0, (MAX_DISTANCE_KM - 1) / degree), 'within');
  assert.is(g.lookup(0, (MAX_DISTANCE_KM + 1) / degree), null, 'beyond');
  assert.equal(g.lookup(0.1, -0.1), { city: 'Solo', region: 'Region', country: 'XX', countryCode: 'XX' });
});

t('rows with unusable coordinates or codes are left out; ties keep the first', () => {
  const g = geocoderOf(
    buildIndex(
      [
        { name: 'Bad', lat: 'x', lng: '0', country: 'PT', admin1: '' },
        { name: 'Far', lat: '95', lng: '0', country: 'PT', admin1: '' },
        { name: 'Code', lat: '10', lng: '10', country: 'p1', admin1: '' },
        { name: 'Good', lat: '10', lng: '10', country: 'PT', admin1: '99' },
      ],
      [],
      'test',
    ),
  );
  assert.equal(g.lookup(10, 10), { city: 'Good', region: null, country: 'Portugal', countryCode: 'PT' });
});

t('country names from ICU; the data version names the package', () => {
  assert.is(countryName('pt'), 'Portugal');
  assert.is(countryName('JP'), 'Japan');
  assert.match(dataVersion(), /^cities\.json@\d+\.\d+\.\d+\/\d+$/);
});

t(
  'built in a worker thread once: the event loop is never held long, lookups are fast',
  async ({ g, loadMs, maxGapMs }) => {
    assert.is(await loadGeocoder(), g, 'built once');
    assert.ok(maxGapMs < 250, `longest event-loop stall while loading: ${maxGapMs.toFixed(0)} ms`);
    const started = performance.now();
    let found = 0;
    for (let i = 0; i < 20_000; i++) if (g.lookup(35 + (i % 200) * 0.1, -10 + (i % 300) * 0.1)) found++;
    const perSecond = 20_000 / ((performance.now() - started) / 1000);
    assert.ok(found > 0);
    assert.ok(perSecond > 10_000, `${perSecond.toFixed(0)} lookups/s`);
    console.log(
      `geocoder: built in ${loadMs.toFixed(0)} ms, longest stall ${maxGapMs.toFixed(0)} ms, ${perSecond.toFixed(0)} lookups/s`,
    );
  },
);

t.run();
