import { rm } from 'node:fs/promises';
import { DomainError, invalid } from '../../platform/errors.js';
import { newMediaId } from '../../platform/ids.js';
import { resolveFfmpeg, resolveFfprobe } from '../../files/binaries.js';
import { captureFacts, withCaptureFacts, type CaptureFacts } from '../../files/captureFacts.js';
import { readTags, type Tags } from '../../files/exifTool.js';
import { exifWithSidecar, readSidecar, withSidecar } from '../../files/sidecar.js';
import { imageDecoderFor, probeImage } from '../../files/imageProbe.js';
import type { ImageDecoder } from '../../files/imageSources.js';
import { refineTiff } from '../../files/rawFormats.js';
import { sniffFile, type Sniffed } from '../../files/sniff.js';
import { probeVideo } from '../../files/videoProbe.js';
import type { NewFrame, NewMedia } from '../../storage/types.js';
import { loadCollection } from '../kernel/access.js';
import { resolveFolderPath } from './folders.js';
import { joinStill, pairLivePhoto } from './livePhoto.js';
import { normalizeMetadata } from './tags.js';
import type { Principal, Services } from '../kernel/services.js';
import { enqueueIngest } from '../ingest/index.js';
import { isDiskFull } from '../../platform/diskSpace.js';
import { recordingPuts, removeUnreferenced } from './uploadCleanup.js';

export interface UploadInput {
  collectionId: string;
  path?: string;
  name?: string;
  /** The upload as the multipart parser left it in DATA_DIR/tmp. */
  file: { tempPath: string; originalName: string | null; sha256?: string | null };
  /** An XMP sidecar of the file (files/sidecar.ts): what it says wins over the file's own metadata. Kept as is. */
  sidecarPath?: string | null;
}

const ACCEPTED =
  'JPEG, PNG, WebP, GIF, TIFF, AVIF, HEIC/HEIF and camera RAW (DNG, CR2, CR3, NEF, ARW, ORF, RAF, RW2) images ' +
  'and MP4, MOV, WebM, MKV, AVI, 3GP videos';
/** The XMP/IPTC keywords of a file become tags in this group. */
export const KEYWORD_TAG_GROUP = 'keywords';

/**
 * Stores an upload. The order is what makes it crash-safe: the bytes are
 * already in a temp file; probe them; move the original (and the processed
 * frame) into the content-addressed store; only then write the database rows in
 * one transaction. A crash before the last step leaves only unreferenced files,
 * which the start-up sweep removes; after it, a complete item.
 */
export async function uploadMedia(
  deps: Pick<Services, 'config' | 'storage' | 'blobs' | 'wakeJobs'> & Partial<Pick<Services, 'logger'>>,
  principal: Principal,
  input: UploadInput,
) {
  const puts = recordingPuts(deps.blobs);
  try {
    const collection = await loadCollection(deps, principal, input.collectionId, 'member');
    const parentPath = await resolveFolderPath(deps, collection, input.path);
    const name = (input.name ?? input.file.originalName ?? '').trim() || 'untitled';
    if (name.length > 1024) throw invalid('name must be at most 1024 characters');

    const head = await sniffFile(input.file.tempPath);
    if (!head) throw new DomainError('unsupported_media', `unsupported file type; accepted: ${ACCEPTED}`);
    // ExifTool runs beside Node (its own processes): the metadata, and which RAW a TIFF-headed file is.
    const tags = await readTags(input.file.tempPath);
    const sniffed: Sniffed = refineTiff(head, tags?.FileType);
    const decoder = sniffed.kind === 'video' ? null : sniffed.sequence ? 'sequence' : imageDecoderFor(sniffed.ext);
    if (sniffed.kind === 'image' && !decoder) {
      throw new DomainError(
        'unsupported_media',
        `${sniffed.ext.toUpperCase()} images cannot be decoded by this server (no decoder for the format in its ` +
          'image library); convert to JPEG, PNG or AVIF first',
      );
    }
    const sidecar = input.sidecarPath ? await readSidecar(input.sidecarPath) : null;
    const facts = withSidecar(captureFacts(tags, sniffed.kind), sidecar);

    const id = newMediaId();
    const base: Omit<NewMedia, keyof StoredUpload['fields'] | 'processingStatus'> = {
      id,
      collectionId: collection.id,
      organizationId: collection.organizationId,
      parentPath,
      name,
      mimeType: sniffed.mime,
      metadata: authoredMetadata(facts),
      createdById: principal.userId,
    };
    const stored = decoder
      ? await storeImage({ ...deps, blobs: puts.blobs }, input.file, sniffed.ext, decoder, tags)
      : await storeVideo({ ...deps, blobs: puts.blobs }, input.file, sniffed.ext);
    const fields = {
      ...stored.fields,
      exif: exifWithSidecar(withCaptureFacts(stored.fields.exif, facts), sidecar),
      takenAt: facts.takenAt ?? stored.fields.takenAt,
    };
    const media: NewMedia = { ...base, ...fields, processingStatus: 'pending' };
    const joined = await joinStill(deps, media);
    if (joined) return joined;
    const record = await deps.storage.media.insert(media, stored.frames);
    // A Live Photo's movie joins its still, which then stands for this upload (livePhoto.ts).
    const item = await pairLivePhoto(deps, principal, record);
    // The row is written first: a crash before the job exists is repaired at start-up (resumeUnfinished).
    if (item.id === record.id) await enqueueIngest(deps, record.id);
    return item;
  } catch (err) {
    // A full disk (ENOSPC, SQLITE_FULL): the rows were not written; the files stored so far go too (507 follows).
    if (isDiskFull(err)) await removeUnreferenced(deps, puts.keys);
    throw err;
  } finally {
    await rm(input.file.tempPath, { force: true });
  }
}

/** What an upload's kind decides: the media fields its probe gives and the frames stored with it. */
interface StoredUpload {
  fields: Pick<NewMedia, 'type' | 'blobKey' | 'sizeBytes' | 'width' | 'height' | 'duration' | 'exif' | 'takenAt'>;
  frames: NewFrame[];
}

type UploadStoreDeps = Pick<Services, 'config' | 'blobs'>;

/**
 * What the author wrote into the file (XMP/IPTC): the description, and the keywords as tags of the
 * KEYWORD_TAG_GROUP group (searchable like any tag). A caption never replaces a description found here.
 */
function authoredMetadata(facts: CaptureFacts): Record<string, unknown> {
  const metadata: Record<string, unknown> = {};
  if (facts.description) metadata.description = facts.description;
  if (facts.keywords.length > 0) metadata.tags = { [KEYWORD_TAG_GROUP]: facts.keywords };
  return normalizeMetadata(metadata);
}

/** Probes an image, then moves the original and its processed frame into the store. */
async function storeImage(
  deps: UploadStoreDeps,
  file: UploadInput['file'],
  ext: string,
  decoder: ImageDecoder,
  tags: Tags | null,
): Promise<StoredUpload> {
  const probe = await probeImage(file.tempPath, {
    maxPixels: deps.config.maxImagePixels,
    frameMaxSide: deps.config.frameMaxSide,
    decoder,
    tags,
    ffmpegPath: resolveFfmpeg(deps.config.ffmpegPath),
  });
  const original = await deps.blobs.putFile(file.tempPath, ext, file.sha256 ?? undefined);
  const frame = await deps.blobs.putBuffer(probe.frame.buffer, probe.frame.ext);
  return {
    fields: {
      type: 'image',
      blobKey: original.key,
      sizeBytes: original.sizeBytes,
      width: probe.width,
      height: probe.height,
      duration: null,
      exif: probe.exif,
      takenAt: probe.takenAt,
    },
    frames: [
      { id: newMediaId(), timestamp: '0', blobKey: frame.key, width: probe.frame.width, height: probe.frame.height },
    ],
  };
}

/** Probes a video, then moves the original into the store (its frames come from ingest). */
async function storeVideo(deps: UploadStoreDeps, file: UploadInput['file'], ext: string): Promise<StoredUpload> {
  const probe = await probeVideo(file.tempPath, resolveFfprobe(deps.config.ffprobePath));
  const original = await deps.blobs.putFile(file.tempPath, ext, file.sha256 ?? undefined);
  return {
    fields: {
      type: 'video',
      blobKey: original.key,
      sizeBytes: original.sizeBytes,
      width: probe.width,
      height: probe.height,
      duration: probe.duration,
      exif: {
        tags: {},
        codec: probe.codec,
        container: probe.container,
        fps: probe.fps,
        hasAudio: probe.hasAudio,
        rotation: probe.rotation,
      },
      takenAt: probe.takenAt,
    },
    frames: [],
  };
}
