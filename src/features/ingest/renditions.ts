import sharp from 'sharp';
import { blobExt } from '../../files/blobStore.js';
import { IMAGE_FORMATS_SHARP_CAN_DECODE, SHARP_TIMEOUT_SECONDS } from '../../files/imageProbe.js';
import type { Services } from '../kernel/services.js';
import type { FrameRecord, MediaRecord } from '../../storage/types.js';

/** Longest side of the small rendition (the API's `thumbnailUrl`): a grid tile. */
export const THUMBNAIL_SIDE = 256;
/** Longest side of the large rendition (`previewUrl`): a lightbox or a hover preview. */
export const PREVIEW_SIDE = 768;
/**
 * WebP quality and effort: effort 2 makes files within a few percent of the default effort 4's in about
 * half the time (docs/measurements/features.md, ingest/renditions.ts).
 */
const WEBP = { quality: 80, effort: 2 } as const;

/** What making renditions uses: the pixel limit, the file store, the frames' rows. */
export type RenditionDeps = Pick<Services, 'config' | 'storage' | 'blobs'>;

/**
 * The two WebP renditions of an image file: upright (EXIF orientation applied) and fitting inside
 * THUMBNAIL_SIDE and PREVIEW_SIDE squares, never enlarged. sharp decodes, resizes and encodes in libuv's
 * thread pool, off the event loop; each size is its own pipeline, so each decodes a JPEG at the smallest
 * scale it needs (shrink-on-load) and the two run at once.
 */
export async function makeRenditions(file: string, maxPixels: number): Promise<{ thumbnail: Buffer; preview: Buffer }> {
  const render = (side: number) =>
    sharp(file, { limitInputPixels: maxPixels, pages: 1 })
      .timeout({ seconds: SHARP_TIMEOUT_SECONDS })
      .rotate()
      .resize({ width: side, height: side, fit: 'inside', withoutEnlargement: true })
      .webp(WEBP)
      .toBuffer();
  const [thumbnail, preview] = await Promise.all([render(THUMBNAIL_SIDE), render(PREVIEW_SIDE)]);
  return { thumbnail, preview };
}

/**
 * What a frame's renditions are made from (a blob key): the frame's own file (upright, at most FRAME_MAX_SIDE), except
 * for an image whose frame came out smaller than the preview while the original is bigger (a
 * FRAME_MAX_SIDE below PREVIEW_SIDE) and sharp reads the original itself (not a HEIC decoded by libheif, nor
 * a RAW shown from its embedded preview): then the original, turned upright here.
 */
function sourceOf(media: MediaRecord, frame: FrameRecord): string {
  const frameSide = Math.max(frame.width, frame.height);
  const originalSide = Math.max(media.width ?? 0, media.height ?? 0);
  const original =
    media.type === 'image' &&
    media.blobKey &&
    IMAGE_FORMATS_SHARP_CAN_DECODE.has(blobExt(media.blobKey)) &&
    frameSide < PREVIEW_SIDE &&
    originalSide > frameSide;
  return original ? media.blobKey! : frame.blobKey;
}

/** The renditions of a stored blob, read from a local file (a temporary copy with S3, removed after). */
async function renditionsOfBlob(deps: RenditionDeps, key: string) {
  const source = await deps.blobs.materialize(key);
  try {
    return await makeRenditions(source.path, deps.config.maxImagePixels);
  } finally {
    await source.release();
  }
}

/**
 * The rendition stage: each of these frames that lacks its renditions (or whose recorded files are gone from the
 * store) gets them, one frame after the other; frames that have them are skipped, so a run interrupted half-way
 * (a crash, a shutdown) resumes where it stopped. Files first, then the row (the store's write order): a crash in between leaves only
 * files for the orphan sweep. Returns how many frames got renditions.
 */
export async function renderFrames(
  deps: RenditionDeps,
  media: MediaRecord,
  frames: FrameRecord[],
  signal: AbortSignal,
): Promise<number> {
  let made = 0;
  for (const frame of frames) {
    if (frame.thumbnailKey && frame.previewKey && (await renditionsStored(deps, frame))) continue;
    if (signal.aborted) throw signal.reason;
    const { thumbnail, preview } = await renditionsOfBlob(deps, sourceOf(media, frame));
    const [small, large] = await Promise.all([
      deps.blobs.putBuffer(thumbnail, 'webp'),
      deps.blobs.putBuffer(preview, 'webp'),
    ]);
    const stored = await deps.storage.analysis.setFrameRenditions(frame.id, frame.blobKey, {
      thumbnailKey: small.key,
      previewKey: large.key,
    });
    if (stored) made++;
  }
  return made;
}

/** Whether a frame's recorded renditions are in the store (the integrity report's repair queues those that are not). */
async function renditionsStored(deps: RenditionDeps, frame: FrameRecord): Promise<boolean> {
  return (await deps.blobs.exists(frame.thumbnailKey!)) && (await deps.blobs.exists(frame.previewKey!));
}

/** The renditions of one item's active frames (the `renditions` job); returns the item, null when it is gone. */
export async function renderItem(
  deps: RenditionDeps,
  mediaId: string,
  signal: AbortSignal,
): Promise<MediaRecord | null> {
  const media = await deps.storage.media.get(mediaId);
  if (!media || media.status !== 'active' || media.type === 'folder') return null;
  await renderFrames(deps, media, await deps.storage.analysis.framesOf(mediaId), signal);
  return media;
}
