/**
 * The store behind watched folders (features/watch): the folders an admin or the operator configured,
 * and what each watched file became. Part of Storage (storage.ts) as `storage.watches`.
 */

/** A watched folder: files under `dir` (on the server's disk) are imported into the collection by themselves. */
export interface WatchedFolder {
  id: string;
  collectionId: string;
  organizationId: string;
  /** Absolute path on the server's disk (as configured, resolved). */
  dir: string;
  /** Folder names inside the collection, joined by '/'; '' = the collection root. */
  into: string;
  /** Deleting a watched file soft-deletes the item it made. */
  mirrorDeletions: boolean;
  /** 'api': configured by an admin; 'env': from WATCH_DIRS (re-read at every start). */
  source: 'api' | 'env';
  createdById: string;
  createdAt: string;
}

/** What one watched file (by its path relative to the watched folder, '/'-separated) became. */
export interface WatchedFile {
  watchId: string;
  relPath: string;
  sha256: string;
  sizeBytes: number;
  mtimeMs: number;
  /** The item holding these bytes; null when the file was refused (`error` says why). */
  mediaId: string | null;
  /** True when this watch made the item (only those are deleted when mirroring deletions). */
  created: boolean;
  error: string | null;
}

export interface WatchStore {
  /** Adds a watched folder; returns the existing one when the collection already watches that dir. */
  add(folder: WatchedFolder): Promise<{ folder: WatchedFolder; created: boolean }>;
  get(id: string): Promise<WatchedFolder | null>;
  /** Every watched folder (collectionId set: of that collection), oldest first. */
  list(collectionId?: string): Promise<WatchedFolder[]>;
  /** Removes the folder and its file records (the items stay). False when there was none. */
  remove(id: string): Promise<boolean>;
  /** Updates an env-configured folder's settings (WATCH_DIRS changed between starts). */
  updateSettings(id: string, patch: { into: string; mirrorDeletions: boolean }): Promise<void>;
  files(watchId: string): Promise<WatchedFile[]>;
  file(watchId: string, relPath: string): Promise<WatchedFile | null>;
  putFile(file: WatchedFile): Promise<void>;
  removeFile(watchId: string, relPath: string): Promise<void>;
}
