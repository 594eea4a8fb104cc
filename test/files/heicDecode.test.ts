/**
 * The HEIC decoding threads (src/files/heic/heicDecode.ts): decodes in parallel up to the limit, a decode
 * that takes too long stops its thread and the next one gets a new thread, a file libheif cannot read is a
 * clear 'unprocessable' and leaves its thread in service. Fixtures from ../shared.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { decodeHeic } from '../../src/files/heic/heicDecode.js';
import { sharedPath } from '../helpers/skip.js';

const alpha = sharedPath('fixtures/formats/heic_alpha_512x512.heic', 'format fixtures');
const grid = sharedPath('fixtures/formats/heic_iphone11promax_gps_grid.heic', 'format fixtures');

test('four decodes at once all come back whole (two threads at most)', async () => {
  if (!alpha || !grid) return;
  const out = await Promise.all([decodeHeic(grid), decodeHeic(alpha), decodeHeic(grid), decodeHeic(alpha)]);
  assert.equal(
    out.map((p) => [p.width, p.height, p.data.length]),
    [
      [2566, 3313, 2566 * 3313 * 4],
      [512, 512, 512 * 512 * 4],
      [2566, 3313, 2566 * 3313 * 4],
      [512, 512, 512 * 512 * 4],
    ],
  );
  // The alpha image's alpha channel is not all opaque.
  const px = out[1].data;
  let transparent = 0;
  for (let i = 3; i < px.length; i += 4) if (px[i] < 255) transparent++;
  assert.ok(transparent > 0, 'alpha decoded');
});

test('past its time limit a decode fails in words and the next one works', async () => {
  if (!grid) return;
  const err = await decodeHeic(grid, 1).catch((e) => e);
  assert.is(err.code, 'unprocessable');
  assert.match(err.message, /could not be decoded in 0.001 s/);
  assert.is((await decodeHeic(grid)).width, 2566);
});

test('a file libheif cannot read: unprocessable with its words; the thread serves the next decode', async () => {
  if (!alpha) return;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'heic-'));
  const cut = path.join(dir, 'cut.heic');
  writeFileSync(cut, readFileSync(alpha).subarray(0, 200));
  const err = await decodeHeic(cut).catch((e) => e);
  assert.is(err.code, 'unprocessable');
  assert.match(err.message, /^the HEIC image could not be decoded \(/);
  assert.not.match(err.message, dir, 'no server paths');
  assert.is((await decodeHeic(alpha)).width, 512);
});

test.run();
