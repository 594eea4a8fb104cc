/**
 * Real photos from ../shared/fixtures and copies of them made with sharp: the same photo resized and
 * recompressed (near duplicates), byte-for-byte copies (exact duplicates), and other photos.
 */
import { readFileSync } from 'node:fs';
import sharp from 'sharp';
import { sharedPath } from '../../helpers/skip.js';
import { waitForProcessing, type TestApp } from '../../helpers/testApp.js';

export const PHOTO_A = 'images/coco_000000000139.jpg';
export const PHOTO_B = 'images/coco_000000000285.jpg';
export const PHOTO_C = 'images/coco_000000000632.jpg';

/** The fixture's bytes, or null (with a SKIP line) when ../shared is absent. */
export function photo(rel: string): Buffer | null {
  const p = sharedPath(`fixtures/${rel}`, 'duplicates: real photos');
  return p ? readFileSync(p) : null;
}

/** Half the size, re-encoded. */
export const resized = async (bytes: Buffer) => {
  const meta = await sharp(bytes).metadata();
  return sharp(bytes)
    .resize(Math.round(meta.width! / 2))
    .jpeg({ quality: 80 })
    .toBuffer();
};
/** Same size, recompressed hard. */
export const recompressed = (bytes: Buffer) => sharp(bytes).jpeg({ quality: 35 }).toBuffer();

/** Uploads and waits until the item is ready; returns its id. */
export async function uploadReady(app: TestApp, datasetId: string, name: string, bytes: Buffer, key?: string) {
  const up = await app.upload({ datasetId, name }, { bytes, filename: name, type: 'image/jpeg' }, key);
  if (up.status >= 300) throw new Error(`upload ${name}: ${up.status} ${JSON.stringify(up.body)}`);
  const m = await waitForProcessing(app, up.body.mediaId);
  if (m.processingStatus !== 'ready') throw new Error(`${name} ${m.processingStatus}`);
  return up.body.mediaId as string;
}
