/**
 * XMP sidecars by name (platform/sidecarNames.ts) and the precedence of their facts (files/sidecar.ts): which
 * sidecar belongs to which file, case-insensitively, the full name before the stem; the sidecar wins field by
 * field and says nothing where it is silent; the position it gives becomes the exif's top-level one.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { captureFacts } from '../../src/files/captureFacts.js';
import { exifWithSidecar, sidecarFacts, withSidecar } from '../../src/files/sidecar.js';
import { isSidecarName, pickSidecar, sidecarBelongsTo } from '../../src/platform/sidecarNames.js';

test('names: full name or stem, any case; the full name first; a stem serves RAW and JPEG alike', () => {
  assert.ok(isSidecarName('IMG_1.XMP') && isSidecarName('a.jpg.xmp') && !isSidecarName('xmp.jpg'));
  assert.ok(sidecarBelongsTo('IMG_1.JPG.xmp', 'IMG_1.JPG'));
  assert.ok(sidecarBelongsTo('img_1.xmp', 'IMG_1.JPG'));
  assert.ok(sidecarBelongsTo('IMG_1.xmp', 'IMG_1.CR2'));
  assert.not.ok(sidecarBelongsTo('IMG_1.xmp', 'IMG_10.JPG'));
  assert.not.ok(sidecarBelongsTo('IMG_1.CR2.xmp', 'IMG_1.JPG'), "a RAW's full-name sidecar is not the JPEG's");
  assert.is(pickSidecar('IMG_1.JPG', ['IMG_1.xmp', 'IMG_1.JPG.xmp', 'IMG_1.JPG']), 'IMG_1.JPG.xmp');
  assert.is(pickSidecar('IMG_1.JPG', ['IMG_1.JPG', 'IMG_1.XMP']), 'IMG_1.XMP');
  assert.is(pickSidecar('IMG_2.JPG', ['IMG_1.xmp', 'IMG_2.JPG']), null);
  assert.is(pickSidecar('.xmp', ['.xmp.xmp']), '.xmp.xmp');
});

test('precedence: the sidecar wins where it speaks, the file elsewhere; its position tops the exif', () => {
  const file = captureFacts(
    {
      Make: 'TestCam',
      Title: 'File title',
      Rating: 2,
      Keywords: ['camera'],
      GPSLatitude: 10,
      GPSLongitude: 20,
    } as never,
    'image',
  );
  const side = sidecarFacts(captureFacts({ Title: 'Sidecar title', Subject: ['a', 'b'] } as never, 'image'));
  assert.equal(side, { title: 'Sidecar title', keywords: ['a', 'b'] }, 'only what it says');
  const merged = withSidecar(file, side);
  assert.is(merged.title, 'Sidecar title');
  assert.equal(merged.keywords, ['a', 'b']);
  assert.is(merged.rating, 2, 'the file where the sidecar is silent');
  assert.is(merged.camera!.make, 'TestCam');
  assert.equal(withSidecar(file, null), file);
  const located = sidecarFacts(captureFacts({ GPSLatitude: 38.71, GPSLongitude: -9.14 } as never, 'image'));
  const exif = exifWithSidecar({ latitude: 10, longitude: 20, Make: 'TestCam' }, located);
  assert.equal(exif, {
    latitude: 38.71,
    longitude: -9.14,
    Make: 'TestCam',
    sidecar: { location: { latitude: 38.71, longitude: -9.14, altitude: null, direction: null } },
  });
  assert.equal(exifWithSidecar({ a: 1 }, {}), { a: 1 }, 'an empty sidecar changes nothing');
});

test.run();
