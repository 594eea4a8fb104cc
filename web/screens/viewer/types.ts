/**
 * The shapes the viewer and search screens read from the JSON API (GET /api/media/:id, scored browse,
 * GET /api/search): only the fields the screens use. Server-side they are made by
 * src/features/kernel/present.ts and src/features/search/*.
 */

export interface Point {
  x: number;
  y: number;
}

/** A detected object: a box or polygon in the frame's pixel coordinates. `type`: object, face, text (OCR), frame. */
export interface Region {
  id: string;
  type: string;
  label: string;
  polygon: Point[];
  confidence?: number | null;
  model?: string;
}

export interface Caption {
  id: string;
  text: string;
  model?: string;
  createdAt?: string;
}

export interface Frame {
  id: string;
  /** Seconds into a video, as a string ("0" for images). */
  timestamp: string;
  blob: string;
  /** 256 px and 768 px renditions (null until made; branch h15thumbs). */
  thumbnailUrl?: string | null;
  previewUrl?: string | null;
  width: number;
  height: number;
  captions: Caption[];
  objects: Region[];
}

export interface MediaItem {
  id: string;
  name: string;
  type: 'image' | 'video' | 'folder';
  blob: string;
  /** A video's URL for <video>: the original when browsers play it, else its H.264 web copy; null until made. */
  playbackUrl?: string | null;
  /** A Live Photo still's movie (played on hover or press); null for anything else. */
  livePhoto?: { motionUrl: string; duration: number | null } | null;
  thumbnailUrl?: string | null;
  previewUrl?: string | null;
  path: string;
  datasetId: string;
  width: number | null;
  height: number | null;
  duration: number | null;
  sizeBytes: number;
  mimeType?: string;
  exif: Record<string, unknown>;
  createdAt: string;
  updatedAt: string;
  metadata: { tags: Record<string, string[]>; description?: string };
  processingStatus?: string;
  processingError?: string | null;
  totalVersions: number;
  rootMediaId?: string;
  isCurrentVersion?: boolean;
  analysis?: Record<string, string>;
  frames: Frame[];
  /** Ours (issue #27). */
  favorite?: boolean;
  archived?: boolean;
  /** Ours (issue #26): where and with what it was taken; null when unknown, absent on older servers. */
  takenAt?: string | null;
  camera?: { make: string | null; model: string | null; lens: string | null } | null;
  location?: {
    latitude: number;
    longitude: number;
    altitude: number | null;
    place: { city: string; region: string | null; country: string; countryCode: string } | null;
  } | null;
}

/** Scored browse adds these to each item. */
export interface ScoredItem extends MediaItem {
  _score: number;
  _matchingFrames: Array<{
    id: string;
    score: number;
    textRank?: number;
    embeddingRank?: number;
    objectId?: string | null;
  }>;
}

/** One result of GET /api/search (organization-wide, frame-level). */
export interface OrgSearchResult {
  id: string;
  timestamp: string;
  blob: string;
  thumbnailUrl?: string | null;
  width: number;
  height: number;
  media: { id: string; name: string; type: 'image' | 'video'; createdAt: string; datasetId: string };
  captions: Caption[];
  objects: Region[];
  rank: number;
  matchedObjectId?: string | null;
  rankingMetrics: { textRank: number; objectEmbeddingRank: number; totalRank: number };
}

/** Seconds of a frame's timestamp. */
export const seconds = (frame: Pick<Frame, 'timestamp'>): number => Number(frame.timestamp) || 0;

/** The small image of a frame: its thumbnail when made, else the frame itself. */
export const thumbOf = (f: Pick<Frame, 'thumbnailUrl' | 'blob'>): string => f.thumbnailUrl || f.blob;
