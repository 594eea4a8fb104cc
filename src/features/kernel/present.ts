/**
 * Turns records into the JSON the spec's Media, Frame, Caption and
 * DetectedObject tables describe. Everything a listing shows goes through here.
 */
import type { FileUrls } from '../../files/fileUrls.js';
import { needsWebVideo, webVideoOf } from '../../files/webPlayable.js';
import type { FolderSummary, FrameDetail, FrameRecord, MediaRecord, StageRecord } from '../../storage/types.js';
import { presentCapture } from './presentCapture.js';
import type { Services } from './services.js';

/**
 * Our own fields on frames and items: signed URLs of the 256 px (`thumbnailUrl`) and 768 px (`previewUrl`)
 * WebP renditions of the frame, null until the rendition stage made them.
 */
export function presentRenditions(urls: FileUrls, f: Pick<FrameRecord, 'thumbnailKey' | 'previewKey'> | undefined) {
  return {
    thumbnailUrl: f?.thumbnailKey ? urls.urlFor(f.thumbnailKey) : null,
    previewUrl: f?.previewKey ? urls.urlFor(f.previewKey) : null,
  };
}

/** A frame as the spec's Frame object, with our renditions. */
export function presentFrame(urls: FileUrls, f: FrameDetail) {
  return {
    id: f.id,
    timestamp: f.timestamp,
    blob: urls.urlFor(f.blobKey),
    ...presentRenditions(urls, f),
    width: f.width,
    height: f.height,
    createdAt: f.createdAt,
    updatedAt: f.updatedAt,
    status: f.status,
    createdById: f.createdById,
    metadata: f.metadata,
    mediaId: f.mediaId,
    captions: f.captions.map((c) => ({
      id: c.id,
      text: c.text,
      frameId: c.frameId,
      createdAt: c.createdAt,
      updatedAt: c.updatedAt,
      status: c.status,
      createdById: c.createdById,
      metadata: c.metadata,
      model: c.model,
    })),
    objects: f.objects.map((o) => ({
      id: o.id,
      type: o.type,
      label: o.label,
      blob: o.blobKey ? urls.urlFor(o.blobKey) : '',
      polygon: o.polygon,
      confidence: o.confidence,
      model: o.model,
    })),
  };
}

export interface PresentExtras {
  frames?: FrameDetail[];
  stages?: StageRecord[];
  folder?: FolderSummary;
  totalVersions?: number;
}

export function presentMedia(urls: FileUrls, m: MediaRecord, extras: PresentExtras = {}) {
  const isFolder = m.type === 'folder';
  const frames = extras.frames ?? [];
  const parentLabels = m.parentPath.split('.');
  return {
    id: m.id,
    name: m.name,
    type: m.type,
    blob: isFolder ? 'folder' : m.blobKey ? urls.urlFor(m.blobKey, m.name) : '',
    // Ours: what a browser's <video> plays (the original, or its web copy); null until the copy is made.
    playbackUrl: playbackUrl(urls, m),
    // Ours: a Live Photo still's movie, played on hover or press; null for anything else.
    livePhoto: livePhoto(urls, m),
    // The item's thumbnails are its first frame's (an image's one frame, a video's poster).
    ...presentRenditions(urls, frames[0]),
    path: m.path,
    datasetId: m.collectionId,
    ...(isFolder ? { collectionId: m.collectionId } : {}),
    entityId: parentLabels.length > 1 ? parentLabels[parentLabels.length - 1] : null,
    width: m.width,
    height: m.height,
    duration: m.duration,
    sizeBytes: m.sizeBytes,
    mimeType: m.mimeType,
    exif: m.exif,
    createdAt: m.createdAt,
    // Ours: when the photo was taken or the video recorded (EXIF, container metadata); null when unknown.
    takenAt: m.takenAt,
    // Ours: the zone of takenAt, the camera and the position (presentCapture.ts).
    ...presentCapture(m),
    updatedAt: m.updatedAt,
    createdById: m.createdById,
    updatedById: m.updatedById,
    status: m.status,
    // Ours: the item's flags (PATCH /api/media/{id} sets them); archived items are out of default listings.
    favorite: m.favorite,
    archived: m.archived,
    metadata: withTags(m.metadata),
    processingStatus: m.processingStatus,
    processingError: m.processingError,
    totalVersions: extras.totalVersions ?? 1,
    rootMediaId: m.rootId,
    isCurrentVersion: m.isCurrent,
    frameObjectId: frames[0]?.objects.find((o) => o.type === 'frame')?.id ?? null,
    folderItemCount: isFolder ? (extras.folder?.itemCount ?? 0) : null,
    folderPreviews: isFolder ? (extras.folder?.previewBlobKeys ?? []).map((k) => urls.urlFor(k)) : null,
    analysis: presentStages(extras.stages ?? []),
    frames: frames.map((f) => presentFrame(urls, f)),
  };
}

/** A video's playable URL: the original when browsers play it, else its web copy once made; null otherwise. */
function playbackUrl(urls: FileUrls, m: MediaRecord): string | null {
  if (m.type !== 'video' || !m.blobKey) return null;
  if (!needsWebVideo(m)) return urls.urlFor(m.blobKey, m.name);
  const copy = webVideoOf(m);
  return copy ? urls.urlFor(copy.key) : null;
}

/** A Live Photo still's motion (exif.livePhoto, features/library/livePhoto.ts) with its URL. */
function livePhoto(urls: FileUrls, m: MediaRecord) {
  const motion = m.type === 'image' ? (m.exif?.livePhoto as { key?: unknown; duration?: unknown } | undefined) : null;
  if (!motion || typeof motion.key !== 'string') return null;
  return { motionUrl: urls.urlFor(motion.key), duration: typeof motion.duration === 'number' ? motion.duration : null };
}

/**
 * The item's analysis stages in words: `{ caption: "waiting for model florence-2-base", objects: "done", … }`;
 * `off` where no model serves the stage; empty until the item's first analysis (and for folders).
 */
export function presentStages(stages: StageRecord[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const s of stages) out[s.stage] = s.state === 'waiting' ? `waiting for model ${s.model}` : s.state;
  return out;
}

/** The spec's metadata document always holds `tags` (an empty object when there are none); the stored document is left as it is. */
function withTags(metadata: MediaRecord['metadata']): MediaRecord['metadata'] & { tags: Record<string, string[]> } {
  return { ...metadata, tags: metadata?.tags ?? {} };
}

export type PresentedMedia = ReturnType<typeof presentMedia>;

/** Presents a page of records, fetching frames, analysis stages, folder summaries and version counts in four queries. */
export async function presentMany(
  deps: Pick<Services, 'storage' | 'urls'>,
  items: MediaRecord[],
): Promise<PresentedMedia[]> {
  const nonFolders = items.filter((m) => m.type !== 'folder');
  const [frames, stages, summaries, versions] = await Promise.all([
    deps.storage.media.frames(nonFolders.map((m) => m.id)),
    deps.storage.analysis.stagesOf(nonFolders.map((m) => m.id)),
    deps.storage.media.folderSummaries(items.filter((m) => m.type === 'folder').map((m) => m.path)),
    deps.storage.media.versionCounts([...new Set(nonFolders.map((m) => m.rootId))]),
  ]);
  return items.map((m) =>
    presentMedia(deps.urls, m, {
      frames: frames.get(m.id),
      stages: stages.get(m.id),
      folder: summaries.get(m.path),
      totalVersions: m.type === 'folder' ? 1 : (versions.get(m.rootId) ?? 1),
    }),
  );
}

export async function presentOne(deps: Pick<Services, 'storage' | 'urls'>, m: MediaRecord): Promise<PresentedMedia> {
  return (await presentMany(deps, [m]))[0];
}
