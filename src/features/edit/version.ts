/**
 * Edits saved as derived versions of a library item (`saveAsVersion: true`).
 *
 * The item is found from the input URL: a library file URL names a blob key,
 * and `media.findByBlobKey` finds the caller's organization's items with that
 * file (the current version first, when identical bytes were uploaded twice).
 * The edited file is stored first, then the row, like an upload: a crash in
 * between leaves only an unreferenced file for the orphan sweep.
 */
import { readFile, rm, writeFile } from 'node:fs/promises';
import { loadMedia, requireRole } from '../kernel/access.js';
import { presentOne } from '../kernel/present.js';
import type { Principal, Services } from '../kernel/services.js';
import { invalid, notFound, unprocessable } from '../../platform/errors.js';
import { probeImage } from '../../files/imageProbe.js';
import { newMediaId } from '../../platform/ids.js';
import { enqueueIngest } from '../ingest/index.js';
import type { MediaRecord, NewFrame } from '../../storage/types.js';
import type { OutputFormat } from './types.js';

const OUTPUT_FILE = /^\/files\/out\/([A-Za-z0-9_-]+)\/([0-9a-f]{64}\.(jpg|png|webp))(?:\/[^/]*)?$/;
const LIBRARY_FILE = /^\/files\/([A-Za-z0-9_-]+)\/([0-9a-f]{64}\.[a-z0-9]{2,5})(?:\/[^/]*)?$/;

/**
 * The library item whose file URL the request's `image` is. 400 when the image
 * is not a library file URL of this server; 404 when no item of the caller's
 * organization has that file.
 */
export async function findLibraryItem(
  deps: Pick<Services, 'config' | 'storage' | 'urls'>,
  principal: Principal,
  image: string,
): Promise<MediaRecord> {
  let url: URL | null = null;
  try {
    url = new URL(image.trim());
  } catch {
    url = null;
  }
  const m = url && url.origin === new URL(deps.urls.origin()).origin ? LIBRARY_FILE.exec(url.pathname) : null;
  if (!m || !deps.urls.verify(m[1], m[2])) {
    throw invalid('saveAsVersion needs image to be the file URL of a library item (its `blob` URL from this server)');
  }
  requireRole(principal, 'member');
  const [item] = await deps.storage.media.findByBlobKey(principal.organizationId, m[2]);
  if (!item) throw notFound('media not found');
  return item;
}

/** What storing an edit as a version uses: limits, the file store, the library and the ingest queue. */
export type SaveVersionDeps = Pick<Services, 'config' | 'storage' | 'blobs' | 'urls' | 'wakeJobs'>;

const MIME: Record<OutputFormat, string> = { jpg: 'image/jpeg', png: 'image/png', webp: 'image/webp' };

/** `photo.jpg` → `photo (edited).png`. */
export function versionName(name: string, format: OutputFormat): string {
  const base = name.replace(/\.[A-Za-z0-9]{1,5}$/, '');
  return `${base} (edited).${format}`;
}

/** Stores the edited bytes as the new current version of the item's root; returns the presented version. */
export async function saveVersion(
  deps: SaveVersionDeps,
  principal: Principal,
  item: MediaRecord,
  bytes: Buffer,
  format: OutputFormat,
) {
  const temp = deps.blobs.tempPath('edit');
  await writeFile(temp, bytes, { flag: 'wx' });
  try {
    const probe = await probeImage(temp, {
      maxPixels: deps.config.maxImagePixels,
      frameMaxSide: deps.config.frameMaxSide,
    });
    const original = await deps.blobs.putFile(temp, format);
    const frame = await deps.blobs.putBuffer(probe.frame.buffer, probe.frame.ext);
    const frames: NewFrame[] = [
      { id: newMediaId(), timestamp: '0', blobKey: frame.key, width: probe.frame.width, height: probe.frame.height },
    ];
    const record = await deps.storage.media.insert(
      {
        id: newMediaId(),
        collectionId: item.collectionId,
        organizationId: item.organizationId,
        parentPath: item.parentPath,
        type: 'image',
        name: versionName(item.name, format),
        blobKey: original.key,
        mimeType: MIME[format],
        width: probe.width,
        height: probe.height,
        duration: null,
        sizeBytes: original.sizeBytes,
        // What ExifTool read from the item it was made from (camera, place, zone) stays true of the edit.
        exif: item.exif?.capture ? { ...probe.exif, capture: item.exif.capture } : probe.exif,
        // The edited file's own capture time; an edit that dropped the EXIF still shows the moment it was made
        // from (always, when that moment came with its zone: the zone belongs to it).
        takenAt: item.exif?.capture ? item.takenAt : (probe.takenAt ?? item.takenAt),
        metadata: item.metadata,
        processingStatus: 'pending',
        createdById: principal.userId,
        rootId: item.rootId,
      },
      frames,
    );
    await enqueueIngest(deps, record.id);
    return presentOne(deps, record);
  } finally {
    await rm(temp, { force: true });
  }
}

/**
 * POST /api/media/:mediaId/versions: an edited (or generated) image of this server's temporary outputs — the
 * `edited_image` / `url` of POST /api/ai/edit, after one edit or several — stored as the item's new current
 * version. Members and above; the image must be one of this server's signed output URLs, still kept.
 */
export async function saveOutputAsVersion(
  deps: SaveVersionDeps & Pick<Services, 'outputs'>,
  principal: Principal,
  mediaId: string,
  image: string,
) {
  const item = await loadMedia(deps, principal, mediaId, 'member');
  if (item.type !== 'image') throw invalid('only an image can take an edited version');
  let url: URL | null = null;
  try {
    url = new URL(image.trim());
  } catch {
    url = null;
  }
  const m = url && url.origin === new URL(deps.urls.origin()).origin ? OUTPUT_FILE.exec(url.pathname) : null;
  if (!m || !deps.outputs.verify(m[1], m[2]))
    throw invalid(
      'image must be the URL of an edited or generated image of this server (edited_image of /api/ai/edit)',
    );
  const file = await deps.outputs.pathOf(m[2]);
  if (!file) throw unprocessable('the edited image is no longer kept (OUTPUT_RETENTION_HOURS): edit it again');
  return saveVersion(deps, principal, item, await readFile(file), m[3] as OutputFormat);
}
