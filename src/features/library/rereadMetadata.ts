/**
 * Reads an item's metadata again with ExifTool: from its stored original (or, for a watched file, the file on
 * disk) and its XMP sidecar — the one given, else the sidecar facts the item already keeps (`exif.sidecar`),
 * which still win over the file's (files/sidecar.ts). For items ingested before a metadata feature existed
 * (bulk `reprocess` with `metadata: true`) and for a watched file whose sidecar changed.
 *
 * What it writes: `exif.capture` and the position fields, the capture time (when one is known; an unknown one
 * keeps the time the item had), the description when the file or sidecar has one, and the `keywords` tag group,
 * which becomes exactly the keywords read (the file's and sidecar's own list: edit keywords there, or use
 * another group for tags of your own).
 */
import { captureFacts, withCaptureFacts } from '../../files/captureFacts.js';
import { readTags } from '../../files/exifTool.js';
import { exifWithSidecar, withSidecar, type SidecarFacts } from '../../files/sidecar.js';
import { invalid } from '../../platform/errors.js';
import type { MediaRecord, Metadata } from '../../storage/types.js';
import { loadMedia } from '../kernel/access.js';
import type { Principal, Services } from '../kernel/services.js';
import { normalizeMetadata } from './tags.js';
import { KEYWORD_TAG_GROUP } from './upload.js';
import { settlePlaces } from '../ingest/index.js';

export interface RereadSource {
  /** The original on disk (a watched file); the stored blob when absent. */
  originalPath?: string;
  /** What a sidecar read now says; absent: the sidecar facts the item keeps. */
  sidecar?: SidecarFacts | null;
}

export async function rereadMetadata(
  deps: Pick<Services, 'storage' | 'blobs'>,
  principal: Principal,
  mediaId: string,
  source: RereadSource = {},
): Promise<MediaRecord> {
  const media = await loadMedia(deps, principal, mediaId, 'member');
  if (media.type === 'folder' || !media.blobKey) throw invalid('folders have no metadata to read');
  const local = source.originalPath ? null : await deps.blobs.materialize(media.blobKey);
  let tags;
  try {
    tags = await readTags(source.originalPath ?? local!.path);
  } finally {
    await local?.release();
  }
  const kind = media.type === 'video' ? 'video' : 'image';
  const sidecar = source.sidecar !== undefined ? source.sidecar : ((media.exif.sidecar as SidecarFacts) ?? null);
  const facts = withSidecar(captureFacts(tags, kind), sidecar);
  const { sidecar: _old, ...exif } = media.exif;
  const next = exifWithSidecar(withCaptureFacts(exif, facts), sidecar);
  if (!sidecar) next.sidecar = null;
  await deps.storage.media.mergeExif(media.id, next, facts.takenAt ?? media.takenAt ?? null);
  // A position read anew (a sidecar's) gets its place now, offline.
  await settlePlaces({ storage: deps.storage });
  return deps.storage.media.mutateMetadata(media.id, principal.userId, (m) => {
    const out: Metadata = { ...m };
    if (facts.description) out.description = facts.description;
    const groups = new Map(Object.entries(m.tags ?? {}));
    if (facts.keywords.length) groups.set(KEYWORD_TAG_GROUP, facts.keywords);
    else groups.delete(KEYWORD_TAG_GROUP);
    out.tags = Object.fromEntries(groups);
    return normalizeMetadata(out);
  });
}
