/** The viewer's gesture arithmetic (web/screens/viewer/gestures.ts): what a drag means, and zoom bounds. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  clampZoom,
  doubleTapZoom,
  dragOutcome,
  DOUBLE_TAP_SCALE,
  MAX_SCALE,
  NO_ZOOM,
  zoomAbout,
  zoomTransform,
} from '../../web/screens/viewer/gestures.js';

test('a drag: left is next, right previous, down closes; short or diagonal drags mean nothing', () => {
  assert.is(dragOutcome(-80, 10), 'next');
  assert.is(dragOutcome(80, -10), 'previous');
  assert.is(dragOutcome(5, 140), 'close');
  assert.is(dragOutcome(0, -140), 'none', 'up does not close');
  assert.is(dragOutcome(-40, 0), 'none', 'too short');
  assert.is(dragOutcome(-80, 70), 'none', 'diagonal');
  assert.is(dragOutcome(90, 95), 'none', 'diagonal down');
});

test('zoom stays between 1 and the maximum, and the picture keeps covering its box', () => {
  assert.equal(clampZoom({ scale: 0.5, x: 30, y: 30 }, 300, 200), NO_ZOOM);
  assert.is(clampZoom({ scale: 9, x: 0, y: 0 }, 300, 200).scale, MAX_SCALE);
  assert.equal(clampZoom({ scale: 2, x: 500, y: -500 }, 300, 200), { scale: 2, x: 150, y: -100 });
});

test('zooming about a point keeps that point where it was on screen', () => {
  const z = zoomAbout({ scale: 1.5, x: 10, y: -4 }, 3, 40, 25);
  // The content point under (40, 25) before: q = (p − t)/s; after, it shows at q·s' + t'.
  const q = { x: (40 - 10) / 1.5, y: (25 + 4) / 1.5 };
  assert.ok(Math.abs(q.x * z.scale + z.x - 40) < 1e-9 && Math.abs(q.y * z.scale + z.y - 25) < 1e-9);
});

test('a double tap zooms in about the tap, and a second one zooms back out', () => {
  const inZoom = doubleTapZoom(NO_ZOOM, 20, 10, 400, 300);
  assert.is(inZoom.scale, DOUBLE_TAP_SCALE);
  assert.equal([inZoom.x, inZoom.y], [20 - 20 * DOUBLE_TAP_SCALE, 10 - 10 * DOUBLE_TAP_SCALE]);
  assert.equal(doubleTapZoom(inZoom, 0, 0, 400, 300), NO_ZOOM);
  assert.is(zoomTransform(NO_ZOOM), '');
  assert.is(zoomTransform({ scale: 2, x: 3, y: 4 }), 'translate(3px, 4px) scale(2)');
});

test.run();
