import type {
  ApiKeyRecord,
  CaptionRecord,
  Collection,
  FrameRecord,
  MediaRecord,
  ObjectRecord,
  Organization,
  Role,
  User,
} from '../types.js';

/** Row shapes as SQLite returns them, and their mapping to domain records. */

const json = <T>(text: string | null, fallback: T): T => {
  if (!text) return fallback;
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
};

export interface OrganizationRow {
  id: string;
  name: string;
  slug: string;
  storage_bytes: number;
  created_at: string;
  created_by_key_id: string | null;
}
export const toOrganization = (r: OrganizationRow): Organization => ({
  id: r.id,
  name: r.name,
  slug: r.slug,
  storageBytes: r.storage_bytes,
  createdAt: r.created_at,
  createdByKeyId: r.created_by_key_id,
});

export interface UserRow {
  id: string;
  email: string;
  name: string;
  created_at: string;
}
export const toUser = (r: UserRow): User => ({ id: r.id, email: r.email, name: r.name, createdAt: r.created_at });

export interface ApiKeyRow {
  id: string;
  organization_id: string;
  user_id: string;
  name: string;
  role: Role;
  key_hash: string;
  prefix: string;
  created_at: string;
  revoked_at: string | null;
  last_used_at?: string | null;
}
export const toApiKey = (r: ApiKeyRow): ApiKeyRecord => ({
  id: r.id,
  organizationId: r.organization_id,
  userId: r.user_id,
  name: r.name,
  role: r.role,
  keyHash: r.key_hash,
  prefix: r.prefix,
  createdAt: r.created_at,
  revokedAt: r.revoked_at,
  lastUsedAt: r.last_used_at ?? null,
});

export interface CollectionRow {
  id: string;
  organization_id: string;
  name: string;
  icon: string | null;
  type: string;
  created_at: string;
  updated_at: string;
  created_by: string;
}
export const toCollection = (r: CollectionRow): Collection => ({
  id: r.id,
  organizationId: r.organization_id,
  name: r.name,
  icon: r.icon,
  type: r.type,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
  createdById: r.created_by,
});

export interface MediaRow {
  id: string;
  dataset_id: string;
  organization_id: string;
  path: string;
  parent_path: string;
  type: MediaRecord['type'];
  name: string;
  blob_key: string | null;
  mime_type: string | null;
  width: number | null;
  height: number | null;
  duration: number | null;
  size_bytes: number;
  exif: string;
  metadata: string;
  status: MediaRecord['status'];
  processing_status: MediaRecord['processingStatus'];
  processing_error: string | null;
  root_id: string;
  is_current: number;
  created_at: string;
  updated_at: string;
  created_by: string;
  updated_by: string | null;
  taken_at: string | null;
  /** 0/1 (migration 027); absent from rows read before it, as 0. */
  favorite?: number | boolean;
  archived?: number | boolean;
}
export const toMedia = (r: MediaRow): MediaRecord => ({
  id: r.id,
  collectionId: r.dataset_id,
  organizationId: r.organization_id,
  path: r.path,
  parentPath: r.parent_path,
  type: r.type,
  name: r.name,
  blobKey: r.blob_key,
  mimeType: r.mime_type,
  width: r.width,
  height: r.height,
  duration: r.duration,
  sizeBytes: r.size_bytes,
  exif: json(r.exif, {}),
  metadata: json(r.metadata, {}),
  status: r.status,
  processingStatus: r.processing_status,
  processingError: r.processing_error,
  rootId: r.root_id,
  isCurrent: r.is_current === 1,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
  createdById: r.created_by,
  updatedById: r.updated_by,
  takenAt: r.taken_at,
  favorite: Boolean(r.favorite),
  archived: Boolean(r.archived),
});

export interface FrameRow {
  id: string;
  media_id: string;
  timestamp: string;
  blob_key: string;
  width: number;
  height: number;
  thumbnail_key: string | null;
  preview_key: string | null;
  status: FrameRecord['status'];
  metadata: string;
  created_at: string;
  updated_at: string;
  created_by: string;
}
export const toFrame = (r: FrameRow): FrameRecord => ({
  id: r.id,
  mediaId: r.media_id,
  timestamp: r.timestamp,
  blobKey: r.blob_key,
  width: r.width,
  height: r.height,
  thumbnailKey: r.thumbnail_key,
  previewKey: r.preview_key,
  status: r.status,
  metadata: json(r.metadata, {}),
  createdAt: r.created_at,
  updatedAt: r.updated_at,
  createdById: r.created_by,
});

export interface CaptionRow {
  id: string;
  frame_id: string;
  text: string;
  model: string;
  status: CaptionRecord['status'];
  metadata: string;
  created_at: string;
  updated_at: string;
  created_by: string;
}
export const toCaption = (r: CaptionRow): CaptionRecord => ({
  id: r.id,
  frameId: r.frame_id,
  text: r.text,
  model: r.model,
  status: r.status,
  metadata: json(r.metadata, {}),
  createdAt: r.created_at,
  updatedAt: r.updated_at,
  createdById: r.created_by,
});

export interface ObjectRow {
  id: string;
  frame_id: string;
  media_id: string;
  type: string;
  label: string;
  blob_key: string | null;
  polygon: string;
  confidence: number | null;
  model: string;
  status: ObjectRecord['status'];
  created_at: string;
}
export const toObject = (r: ObjectRow): ObjectRecord => ({
  id: r.id,
  frameId: r.frame_id,
  mediaId: r.media_id,
  type: r.type,
  label: r.label,
  blobKey: r.blob_key,
  polygon: json(r.polygon, []),
  confidence: r.confidence,
  model: r.model,
  status: r.status,
  createdAt: r.created_at,
});
