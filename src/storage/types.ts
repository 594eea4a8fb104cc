/**
 * Records the storage layer stores and hands back. They are plain data in
 * domain terms (camelCase, ISO timestamps, parsed JSON); the HTTP layer
 * presents them (src/features/kernel/present.ts) and never sees SQL rows.
 */
import type { SimilarityModel } from '../index/vector/types.js';
import type { PlaceFilter } from './placeFilter.js';

export type Role = 'owner' | 'admin' | 'member' | 'viewer';
export const ROLES: readonly Role[] = ['viewer', 'member', 'admin', 'owner'];
/** True when `have` grants at least what `need` grants. */
export const roleAtLeast = (have: Role, need: Role): boolean => ROLES.indexOf(have) >= ROLES.indexOf(need);

export interface Organization {
  id: string;
  name: string;
  slug: string;
  /** Bytes of active media (all versions) in the organization. */
  storageBytes: number;
  createdAt: string;
  /** The API key that created it through the API; null for the bootstrap organization. */
  createdByKeyId: string | null;
}

export interface User {
  id: string;
  email: string;
  name: string;
  createdAt: string;
}

/** A signed-in browser (src/features/accounts/sessions.ts). The cookie's secret is never stored, only its sha256. */
export interface SessionRecord {
  id: string;
  userId: string;
  /** The organization the session acts in now (the user may switch among their memberships). */
  organizationId: string;
  secretHash: string;
  /** Sent back by the web app in `x-csrf-token` on every cookie-authenticated write. */
  csrfToken: string;
  createdAt: string;
  lastSeenAt: string;
  /** Absolute end, however active the session is. */
  expiresAt: string;
  revokedAt: string | null;
  userAgent: string | null;
  ip: string | null;
}

/** A one-time invite link into an organization with a role; only the token's sha256 is stored. */
export interface InviteRecord {
  id: string;
  organizationId: string;
  /** Lowercase. */
  email: string;
  role: Role;
  tokenHash: string;
  invitedBy: string;
  createdAt: string;
  expiresAt: string;
  acceptedAt: string | null;
  acceptedBy: string | null;
  revokedAt: string | null;
}

export interface ApiKeyRecord {
  id: string;
  organizationId: string;
  userId: string;
  name: string;
  role: Role;
  /** sha256 of the secret; the secret itself is never stored. */
  keyHash: string;
  /** First characters of the secret, shown in listings so a user can tell keys apart. */
  prefix: string;
  createdAt: string;
  revokedAt: string | null;
  /** When the key last authenticated a request (recorded at most once a minute); null or absent: never. */
  lastUsedAt?: string | null;
}

/** A member of an organization as the people screen lists them (AccountStore.listMembers). */
export interface MemberRecord {
  user: User;
  role: Role;
  joinedAt: string;
  /** The latest activity of the user's live or ended sessions acting in the organization; null when none. */
  lastSeenAt: string | null;
  /** The latest use of the user's keys in the organization; null when none recorded. */
  keyLastUsedAt: string | null;
}

/** What a change of membership did: `last_owner` when it would leave the organization without an owner. */
export type MembershipChange = 'ok' | 'not_member' | 'last_owner';

export interface Collection {
  id: string;
  organizationId: string;
  name: string;
  icon: string | null;
  type: string;
  createdAt: string;
  updatedAt: string;
  createdById: string;
}

export type MediaType = 'image' | 'video' | 'folder';
export type ProcessingStatus = 'pending' | 'processing' | 'ready' | 'failed';
export type RecordStatus = 'active' | 'deleted';

export type Metadata = Record<string, unknown> & { tags?: Record<string, string[]> };

export interface MediaRecord {
  id: string;
  collectionId: string;
  organizationId: string;
  /** ltree path: `<collection label>.<folder id>...<own id>`. */
  path: string;
  /** Path of the folder (or collection root) that holds the item. */
  parentPath: string;
  type: MediaType;
  name: string;
  /** Content-addressed key of the original file; null for folders. */
  blobKey: string | null;
  mimeType: string | null;
  width: number | null;
  height: number | null;
  duration: number | null;
  sizeBytes: number;
  exif: Record<string, unknown>;
  metadata: Metadata;
  status: RecordStatus;
  processingStatus: ProcessingStatus;
  processingError: string | null;
  /** Id of the original this item is a version of (its own id for originals). */
  rootId: string;
  /** The version shown in listings; exactly one per root among active versions. */
  isCurrent: boolean;
  createdAt: string;
  updatedAt: string;
  createdById: string;
  updatedById: string | null;
  /**
   * When the photo was taken or the video recorded (EXIF DateTimeOriginal, a container's creation time), ISO
   * UTC; null when unknown (src/files/captureTime.ts). Browse sorts and filters by it, or createdAt without it.
   */
  takenAt: string | null;
  /** Marked a favourite by a member (a flag of the item: every version carries it). */
  favorite: boolean;
  /** Archived: kept, but out of the default listings and search (`archived=include|only` asks for it). */
  archived: boolean;
}

/**
 * What a search result shows of an item and whether it is live
 * (MediaStore.summaries): 11 columns of 24 and no JSON, about half the
 * cost of reading a MediaRecord.
 */
export type MediaSummary = Pick<
  MediaRecord,
  | 'id'
  | 'collectionId'
  | 'type'
  | 'name'
  | 'blobKey'
  | 'width'
  | 'height'
  | 'duration'
  | 'status'
  | 'isCurrent'
  | 'createdAt'
  | 'favorite'
  | 'archived'
>;

export interface FrameRecord {
  id: string;
  mediaId: string;
  /** Seconds into the video as a string; "0" for images. */
  timestamp: string;
  blobKey: string;
  width: number;
  height: number;
  /** The 256 px WebP rendition of blobKey (the API's thumbnailUrl); null until the rendition stage made it. */
  thumbnailKey: string | null;
  /** The 768 px WebP rendition of blobKey (the API's previewUrl); null until the rendition stage made it. */
  previewKey: string | null;
  status: RecordStatus;
  metadata: Record<string, unknown>;
  createdAt: string;
  updatedAt: string;
  createdById: string;
}

/** A frame's two renditions, as the rendition stage stores them (src/features/ingest/renditions.ts). */
export interface FrameRenditions {
  thumbnailKey: string;
  previewKey: string;
}

/** One blob an item's rows reference, and how (MediaStore.blobReferences: the integrity report's walk). */
export interface BlobReference {
  mediaId: string;
  blobKey: string;
  /**
   * The item's own file (or a Live Photo's movie), a frame's file, a frame's 256 px or 768 px rendition, an
   * object's crop, or a video's web-playable copy.
   */
  role: 'original' | 'frame' | 'thumbnail' | 'preview' | 'crop' | 'webVideo';
  /** Whether the item is active (not deleted): only active items are queued for repair. */
  active: boolean;
}

export interface CaptionRecord {
  id: string;
  frameId: string;
  text: string;
  model: string;
  status: RecordStatus;
  metadata: Record<string, unknown>;
  createdAt: string;
  updatedAt: string;
  createdById: string;
}

export interface Point {
  x: number;
  y: number;
}

export interface ObjectRecord {
  id: string;
  frameId: string;
  mediaId: string;
  type: string;
  label: string;
  blobKey: string | null;
  polygon: Point[];
  confidence: number | null;
  model: string;
  status: RecordStatus;
  createdAt: string;
}

/** A frame with what was found on it, as GET /api/media/{id} shows it. */
export interface FrameDetail extends FrameRecord {
  captions: CaptionRecord[];
  objects: ObjectRecord[];
}

/** The spec's sort keys, and ours: `takenAt` (the capture time, or createdAt where it is unknown). */
export type SortField = 'name' | 'createdAt' | 'type' | 'description' | 'prompt' | 'takenAt';

/** How a listing treats archived items (BrowseQuery.archived). */
export type ArchivedFilter = 'exclude' | 'include' | 'only';

/** Which date createdFrom / createdBefore bound: createdAt, or the capture time as takenAt sorts it. */
export type DateField = 'createdAt' | 'takenAt';

export interface BrowseQuery {
  collectionId: string;
  /** The folder (or collection root) whose contents are listed. */
  path: string;
  /** false: direct children only; true: every descendant. */
  recursive: boolean;
  types: MediaType[] | null;
  /** Inclusive lower bound on the date `dateField` names (ISO). */
  createdFrom: string | null;
  /** Exclusive upper bound on the date `dateField` names (ISO). */
  createdBefore: string | null;
  /**
   * The date the bounds apply to: createdAt (absent: the spec's meaning), or takenAt — the capture time, or
   * createdAt for an item without one, the value sortBy=takenAt orders by.
   */
  dateField?: DateField;
  /** AND between groups, OR within a group. */
  tagFilters: Record<string, string[]> | null;
  /** Legacy flat filter: the item carries every one of these values, in any group. */
  tagValues: string[] | null;
  mediaId: string | null;
  /** Items holding objects of this cluster (filled by the search issue). */
  clusterId: string | null;
  /** Items in this album (ours, features/share); absent or null: no album filter. */
  albumId?: string | null;
  /** true: only favourites; absent or null: any. */
  favorite?: boolean | null;
  /** Archived items: left out (absent, `exclude`: the default views), listed with the rest (`include`), or alone (`only`). */
  archived?: ArchivedFilter;
  /** Ours (issue #26): country, place, camera and bounding-box filters (storage/placeFilter.ts); absent: none. */
  places?: PlaceFilter | null;
  sortBy: SortField;
  sortDirection: 'asc' | 'desc';
  limit: number;
  offset: number;
}

export interface FolderSummary {
  /** Active, current images and videos anywhere beneath the folder. */
  itemCount: number;
  /** Blob keys of up to 3 images beneath the folder, newest first. */
  previewBlobKeys: string[];
}

/** One child folder of a folder level, as the folder tree shows it (MediaStore.childFolders). */
export interface ChildFolder {
  id: string;
  name: string;
  path: string;
  /** Live entries directly inside: items and subfolders (the folder's one-level listing total). */
  childCount: number;
  /** Live subfolders directly inside (0: a leaf, nothing to expand). */
  folderCount: number;
  /** Live images and videos anywhere beneath (as FolderSummary.itemCount). */
  itemCount: number;
}

/** A new item or folder as the media store's insert takes it: the record's own fields, before any write. */
export interface NewMedia extends Pick<
  MediaRecord,
  | 'id'
  | 'collectionId'
  | 'organizationId'
  | 'parentPath'
  | 'type'
  | 'name'
  | 'blobKey'
  | 'mimeType'
  | 'width'
  | 'height'
  | 'duration'
  | 'sizeBytes'
  | 'exif'
  | 'metadata'
  | 'processingStatus'
  | 'createdById'
> {
  /** Set for a derived version: the original's id. */
  rootId?: string;
  /** The capture time (MediaRecord.takenAt); absent or null when unknown. */
  takenAt?: string | null;
}

export interface NewFrame {
  id: string;
  timestamp: string;
  blobKey: string;
  width: number;
  height: number;
  metadata?: Record<string, unknown>;
}

/** Defined by the vector index (which kind of thing an embedding describes). */
export type { SimilarityModel };

export interface NewCaption {
  id: string;
  text: string;
  model: string;
}

/** A detected object as the analysis store writes it: the record's own fields, with its embedding if any. */
export interface NewObject extends Pick<
  ObjectRecord,
  'id' | 'type' | 'label' | 'blobKey' | 'polygon' | 'confidence' | 'model'
> {
  similarityModel: SimilarityModel | null;
  embedding: { modelId: string; vector: Float32Array } | null;
}

/**
 * One analysis stage of an item (embeddings, caption, objects, …): `done`,
 * `waiting` for the named model to be installed, or `off` (no model serves it).
 */
export interface StageRecord {
  stage: string;
  state: 'done' | 'waiting' | 'off';
  /** The model the stage waits for (or that did it); null when off. */
  model: string | null;
}

/** What an event of the log reports (GET /api/events; src/features/events presents them). */
export type EventType = 'media.created' | 'media.status' | 'media.thumbnail' | 'media.deleted' | 'job.progress';

/**
 * One entry of the event log: something that happened to an item of an organization, or the progress of
 * its background jobs. Ids increase in commit order and are never reused.
 */
export interface EventRecord {
  id: number;
  type: EventType;
  organizationId: string;
  /** The item's collection; null for organization-wide events (job progress). */
  collectionId: string | null;
  mediaId: string | null;
  /** The event's own fields (status, reason, path, counts, …). */
  data: Record<string, unknown>;
  createdAt: string;
}

export type NewEvent = Omit<EventRecord, 'id' | 'createdAt'>;
