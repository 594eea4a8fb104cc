/**
 * Live Photos: an iPhone still (HEIC or JPEG) and a short QuickTime movie that carry the same Apple content
 * identifier (ExifTool's ContentIdentifier, `exif.capture.contentIdentifier`) become one item: the still is
 * the item, and the movie is kept on it as its motion (`exif.livePhoto`), played on hover or press in the
 * viewer. Either half may come first (an import sends files in any order):
 *
 *  - the movie after its still: the movie's upload attaches it to the still and answers the still; the movie
 *    makes no item of its own (joinStill, before any row is written);
 *  - the still after its movie: the movie was an item of its own (a video) until then; the still takes it as
 *    its motion and the video item is deleted.
 *
 * The movie's file is kept whole and referenced by the still; nothing is re-encoded.
 */
import type { MediaRecord } from '../../storage/types.js';
import { DomainError } from '../../platform/errors.js';
import type { Principal, Services } from '../kernel/services.js';

/** A Live Photo's movie lasts about three seconds; a longer video is not taken as one. */
export const MAX_MOTION_SECONDS = 10;

/** The motion half, as recorded on the still. */
export interface LivePhotoMotion {
  key: string;
  mimeType: string | null;
  duration: number | null;
  width: number | null;
  height: number | null;
  sizeBytes: number;
}

/** The still's recorded motion, when it has one. */
export function livePhotoOf(media: Pick<MediaRecord, 'exif'>): LivePhotoMotion | null {
  const m = media.exif?.livePhoto as LivePhotoMotion | undefined;
  return m && typeof m.key === 'string' ? m : null;
}

type Half = Pick<MediaRecord, 'type' | 'mimeType' | 'duration' | 'exif' | 'blobKey' | 'width' | 'height' | 'sizeBytes'>;

const contentIdentifier = (m: Half): string | null => {
  const capture = m.exif?.capture as { contentIdentifier?: unknown } | undefined;
  return typeof capture?.contentIdentifier === 'string' ? capture.contentIdentifier : null;
};

const isMotion = (m: Half) =>
  m.type === 'video' && m.mimeType === 'video/quicktime' && (m.duration ?? 0) <= MAX_MOTION_SECONDS;

const motionOf = (m: Half): LivePhotoMotion => ({
  key: m.blobKey!,
  mimeType: m.mimeType,
  duration: m.duration,
  width: m.width,
  height: m.height,
  sizeBytes: m.sizeBytes,
});

/**
 * Before a movie's row is written: when it is a Live Photo's movie whose still is already in the collection,
 * it joins the still (no item of its own, no row written and deleted) and the still, updated, is returned;
 * otherwise null (the movie is stored as a video, and pairLivePhoto looks again once it is).
 */
export async function joinStill(
  deps: Pick<Services, 'storage'>,
  media: Half & { collectionId: string },
): Promise<MediaRecord | null> {
  const cid = contentIdentifier(media);
  if (!cid || !isMotion(media) || !media.blobKey) return null;
  const halves = await deps.storage.media.findByContentIdentifier(media.collectionId, cid);
  const still = halves.find((m) => m.type === 'image' && m.isCurrent);
  if (!still) return null;
  if (livePhotoOf(still)?.key === media.blobKey) return still; // the same movie again (an import run twice)
  return deps.storage.media.mergeExif(still.id, { livePhoto: motionOf(media) });
}

/**
 * After a row is written: pairs the item with the other half of its Live Photo, if that is in the collection
 * (a still takes the movies stored before it; a movie whose still arrived meanwhile joins it and its row is
 * deleted). Returns the item that stands for the upload: the still when the upload was a movie, else the record.
 */
export async function pairLivePhoto(
  deps: Pick<Services, 'storage'>,
  principal: Principal,
  record: MediaRecord,
): Promise<MediaRecord> {
  const cid = contentIdentifier(record);
  if (!cid || (record.type !== 'image' && !isMotion(record))) return record;
  const halves = await deps.storage.media.findByContentIdentifier(record.collectionId, cid);
  const still = record.type === 'image' ? record : halves.find((m) => m.type === 'image' && m.isCurrent);
  if (!still) return record; // a movie alone stays a video until its still comes
  const motions = halves.filter((m) => m.id !== still.id && isMotion(m) && m.blobKey);
  if (motions.length === 0) return record;
  const motion = motions[motions.length - 1];
  const paired = (await deps.storage.media.mergeExif(still.id, { livePhoto: motionOf(motion) })) ?? still;
  for (const m of motions) await deleteQuietly(deps, principal, m.id);
  return paired;
}

/** Deletes a motion item that became part of a still; one deleted meanwhile (the other half's upload) is fine. */
async function deleteQuietly(deps: Pick<Services, 'storage'>, principal: Principal, id: string): Promise<void> {
  await deps.storage.media.softDelete(id, principal.userId).catch((err) => {
    if (!(err instanceof DomainError && err.code === 'not_found')) throw err;
  });
}
