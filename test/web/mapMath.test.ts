/** The map's arithmetic without a browser: Web Mercator, pan and zoom, and (clusters: map.test.ts in the browser) the new browse filters in the URL. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  clampView,
  fitPoints,
  latitudeOf,
  longitudeOf,
  MAX_ZOOM,
  toScreen,
  toWorld,
  viewBounds,
  worldX,
  worldY,
  zoomAt,
  keyToView,
} from '../../web/screens/map/projection.js';
import { browseParams, hasFilters, readState, stateUrl } from '../../web/screens/browse/browseState.js';

const near = (a: number, b: number, eps = 1e-6) => Math.abs(a - b) < eps;

test('Mercator round-trips and keeps the world square', () => {
  for (const [lat, lon] of [
    [38.7223, -9.1393],
    [-33.86, 151.2],
    [0, 0],
  ]) {
    assert.ok(near(latitudeOf(worldY(lat)), lat), `lat ${lat}`);
    assert.ok(near(longitudeOf(worldX(lon)), lon), `lon ${lon}`);
  }
  assert.ok(near(worldY(85.05112878), 0, 1e-6) && near(worldY(-90), 1, 1e-6), 'poles clamp to the edges');
});

test('zooming keeps the point under the cursor; the view stays over the world', () => {
  const v = clampView({ cx: 0.5, cy: 0.4, zoom: 4, width: 800, height: 600 });
  const [wx, wy] = toWorld(v, 100, 200);
  const z = zoomAt(v, 1.5, 100, 200);
  const [sx, sy] = toScreen(z, wx, wy);
  assert.ok(near(sx, 100, 1e-6) && near(sy, 200, 1e-6));
  assert.is(zoomAt(v, 99).zoom, MAX_ZOOM);
  const far = clampView({ ...v, cx: 5, cy: -3 });
  assert.ok(far.cx < 1 && far.cy > 0, 'panned back over the world');
  const panned = keyToView(v, 'ArrowLeft')!;
  const [ax] = toScreen(panned, 0.5, 0.4);
  assert.ok(near(ax, 500), 'ArrowLeft moves the world 100 px right');
  assert.is(keyToView(v, 'q'), null);
});

test('fitPoints shows every point', () => {
  const lats = [38.7, 35.7, 48.9];
  const lons = [-9.1, 139.7, 2.3];
  const v = fitPoints(lats, lons, 1000, 700);
  const [w, s, e, n] = viewBounds(v);
  lats.forEach((lat, i) => assert.ok(lat > s && lat < n && lons[i] > w && lons[i] < e, `point ${i}`));
});

test('country, place, camera and bbox filters read from and write to the URL; junk is dropped', () => {
  const q = new URLSearchParams('country=pt&place=Lisbon&camera=Pixel%208&bbox=-9.2,38.6,-9,38.8');
  const s = readState(q);
  assert.is(s.country, 'PT');
  assert.is(s.place, 'Lisbon');
  assert.is(s.camera, 'Pixel 8');
  assert.is(s.bbox, '-9.2,38.6,-9,38.8');
  assert.ok(hasFilters(s));
  const params = browseParams(s);
  assert.equal([params.country, params.place, params.camera, params.bbox], ['PT', 'Lisbon', 'Pixel 8', s.bbox]);
  assert.is(readState(new URLSearchParams(stateUrl('d', s).split('?')[1])).camera, 'Pixel 8');
  const junk = readState(new URLSearchParams('country=Portugal&bbox=1,2,3&place=%20'));
  assert.equal([junk.country, junk.bbox, junk.place], ['', '', '']);
  assert.is(readState(new URLSearchParams('bbox=0,50,10,40')).bbox, '', 'south above north');
});

test.run();
