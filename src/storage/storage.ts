import type {
  ApiKeyRecord,
  BlobReference,
  BrowseQuery,
  Collection,
  ChildFolder,
  EventRecord,
  FolderSummary,
  FrameDetail,
  FrameRecord,
  FrameRenditions,
  InviteRecord,
  MediaRecord,
  MediaSummary,
  Metadata,
  NewCaption,
  NewFrame,
  NewObject,
  ObjectRecord,
  NewMedia,
  NewEvent,
  Organization,
  ProcessingStatus,
  Role,
  SessionRecord,
  StageRecord,
  User,
} from './types.js';
import type { TrashReads } from './trash.js';
import type { JobStore } from '../jobs/types.js';
import type { JobWakeups } from '../jobs/wakeups.js';
import type { ClusterStore } from '../index/faces/types.js';
import type { WatchStore } from './watchStore.js';
import type { DuplicateStore } from './duplicateStore.js';
import type { AlbumStore, ShareStore } from './shareStore.js';
import type { ExclusiveLock } from './exclusiveLock.js';

/**
 * The storage layer: every read and write of the database goes through these interfaces. Each method is atomic on
 * its own (one transaction), so domain code never holds a transaction open across an await. SQLite and PostgreSQL
 * (src/storage/sqlite, src/storage/postgres) implement them and pass the same suite (test/storage/suite.ts).
 */
export interface Storage {
  accounts: AccountStore;
  /** Signed-in browser sessions and the failed sign-ins behind the lockout. */
  sessions: SessionStore;
  /** One-time invite links into organizations. */
  invites: InviteStore;
  collections: CollectionStore;
  media: MediaStore;
  /** What the ingest pipeline writes on frames: captions, objects, embeddings. */
  analysis: AnalysisStore;
  /** Face clusters per collection (src/index/faces). */
  clusters: ClusterStore;
  /** The durable job queue (src/jobs): ingest, re-indexing, clustering. */
  jobs: JobStore;
  /** The event log behind GET /api/events: item changes and job progress, per organization. */
  events: EventStore;
  /** Other processes' enqueues, for an idle job runner here (PostgreSQL); absent where one process owns the queue. */
  jobWakeups?: JobWakeups;
  /** Watched folders and what their files became (features/watch). */
  watches: WatchStore;
  duplicates: DuplicateStore; // duplicate scans, groups, dismissals (duplicateStore.ts)
  albums: AlbumStore;
  shares: ShareStore;
  /**
   * A consistent copy of the whole database as it is at one moment, written to `file` (SQLite: its online
   * backup API, `pagesPerStep` pages a step, the event loop free between steps; a step that sees another
   * connection's write starts again, so a separate process passes a big step). Absent where the engine's own
   * tool does it (PostgreSQL: pg_dump). Returns every blob key the copy references: what a backup must hold.
   */
  backupTo?(file: string, options?: { pagesPerStep?: number }): Promise<{ blobKeys: string[] }>;
  /** One process's lock among those sharing the database (null: another holds it); absent on SQLite. */
  tryExclusiveLock?(name: string): Promise<ExclusiveLock | null>;
  /** Flushes and closes. Further calls fail. */
  close(): Promise<void>;
}

export interface AccountStore {
  countOrganizations(): Promise<number>;
  /**
   * Creates the organization and makes `ownerUserId` its owner, atomically. A slug another organization has (even
   * one made a moment ago by a racing request) throws a `conflict` DomainError.
   */
  createOrganization(
    org: { id: string; name: string; slug: string; createdByKeyId?: string | null },
    ownerUserId: string,
  ): Promise<Organization>;
  getOrganization(id: string): Promise<Organization | null>;
  /** Every organization, oldest first (maintenance scripts). */
  listOrganizations(): Promise<Organization[]>;
  isSlugTaken(slug: string): Promise<boolean>;
  /** Organizations the user belongs to, with the user's role in each, oldest first. */
  listOrganizationsForUser(userId: string): Promise<Array<Organization & { role: Role }>>;
  createUser(user: User): Promise<User>;
  getUser(id: string): Promise<User | null>;
  getMembershipRole(organizationId: string, userId: string): Promise<Role | null>;
  createApiKey(key: ApiKeyRecord): Promise<void>;
  /** Only keys that are not revoked. */
  findApiKeyByHash(keyHash: string): Promise<ApiKeyRecord | null>;
  getApiKey(id: string): Promise<ApiKeyRecord | null>;
  listApiKeys(organizationId: string): Promise<ApiKeyRecord[]>;
  /** Marks the key revoked; false when there was no such active key. */
  revokeApiKey(id: string, at: string): Promise<boolean>;
  /** The user with this email (compared without regard to case) and their password hash, null when none is set. */
  findCredentials(email: string): Promise<{ user: User; passwordHash: string | null } | null>;
  getPasswordHash(userId: string): Promise<string | null>;
  /** Changes the named fields; null when there is no such user. An email another user has is a unique violation. */
  updateUser(id: string, patch: { email?: string; name?: string; passwordHash?: string }): Promise<User | null>;
  getSetting(key: string): Promise<string | null>;
  /** Stores the value unless the key already has one; returns the value in force. */
  setSettingIfAbsent(key: string, value: string): Promise<string>;
  /** Stores the value, replacing any. */
  setSetting(key: string, value: string): Promise<void>;
  /** Deletes the setting only while it holds `value`; true when this call deleted it (of racing callers, one wins). */
  takeSetting(key: string, value: string): Promise<boolean>;
  deleteSetting(key: string): Promise<void>;
}

/**
 * Browser sessions (src/features/accounts/sessions.ts) and the failed sign-ins that gate making one.
 * "Live" means: not revoked, `expiresAt` after `now`, `lastSeenAt` after `idleSince`.
 */
export interface SessionStore {
  create(session: SessionRecord): Promise<void>;
  /** The session with this id, in any state. */
  get(id: string): Promise<SessionRecord | null>;
  /** The live session whose secret has this sha256, or null. */
  findLive(secretHash: string, now: string, idleSince: string): Promise<SessionRecord | null>;
  /** The user's live sessions, newest first. */
  listLive(userId: string, now: string, idleSince: string): Promise<SessionRecord[]>;
  /** Records activity (the caller spares writes: at most once a minute). */
  touch(id: string, at: string): Promise<void>;
  setOrganization(id: string, organizationId: string): Promise<void>;
  /** Revokes the session if it is this user's and not yet revoked; false otherwise. */
  revoke(id: string, userId: string, at: string): Promise<boolean>;
  /** Revokes every unrevoked session of the user except `exceptId`; returns how many. */
  revokeAllForUser(userId: string, at: string, exceptId: string | null): Promise<number>;
  /** Records a failed sign-in for the (lowercase) email; drops every failure older than `pruneBefore`. */
  recordFailure(email: string, at: string, pruneBefore: string): Promise<void>;
  /** When the email's sign-ins failed, at or after `since`, oldest first. */
  failuresSince(email: string, since: string): Promise<string[]>;
  clearFailures(email: string): Promise<void>;
}

/** One-time invite links (src/features/accounts/invites.ts). Pending: not accepted, not revoked, not expired. */
export interface InviteStore {
  create(invite: InviteRecord): Promise<void>;
  get(id: string): Promise<InviteRecord | null>;
  /** The invite with this token hash, in any state. */
  findByTokenHash(tokenHash: string): Promise<InviteRecord | null>;
  /** The organization's pending invites at `now`, oldest first. */
  listPending(organizationId: string, now: string): Promise<InviteRecord[]>;
  /** Revokes the invite if it is pending at `at`; false otherwise. */
  revoke(id: string, at: string): Promise<boolean>;
  /** Revokes the organization's pending invites for this email (a new invite supersedes them); returns how many. */
  revokePendingFor(organizationId: string, email: string, at: string): Promise<number>;
  /**
   * Accepts an invite in one transaction: marks it accepted by `member.userId`, creates that user first when
   * `newUser` is given, and adds the membership with the invite's role (an existing membership is kept as it is).
   * False, changing nothing, when the invite is not pending at `at`.
   */
  accept(
    id: string,
    at: string,
    member: { userId: string; newUser?: { user: User; passwordHash: string } },
  ): Promise<boolean>;
}

export interface CollectionStore {
  create(collection: Collection): Promise<Collection>;
  get(id: string): Promise<Collection | null>;
  list(organizationId: string): Promise<Collection[]>;
  update(id: string, patch: { name?: string; icon?: string | null }, at: string): Promise<Collection | null>;
}

export interface MediaStore extends TrashReads {
  /**
   * Inserts an item (and its frames) in one transaction, indexes its tags and
   * adds its size to the organization's storage counter. For a derived version
   * (`rootId` set) the new row becomes the current version of that root.
   */
  insert(media: NewMedia, frames: NewFrame[]): Promise<MediaRecord>;
  /** Inserts a folder; with `reuse`, returns the active folder of the same name under the same parent instead. */
  insertFolder(folder: NewMedia, reuse: boolean): Promise<{ folder: MediaRecord; created: boolean }>;
  /** Any status. */
  get(id: string): Promise<MediaRecord | null>;
  /** Active frames of the given items with their active captions and objects, by media id. */
  frames(mediaIds: string[]): Promise<Map<string, FrameDetail[]>>;
  /**
   * Frames picked one by one, with their active captions and objects: each
   * reference names an active frame of that item, or (frameId null) the
   * item's first active frame in time. The answer is aligned with `refs`,
   * null where there is no such frame. Reads only those frames (frames()
   * reads every frame of the items: up to 300 for a long video).
   */
  pickFrames(refs: Array<{ mediaId: string; frameId: string | null }>): Promise<Array<FrameDetail | null>>;
  /** Renames and/or replaces the whole metadata document; keeps the tag index in step. */
  update(id: string, patch: { name?: string; metadata?: Metadata }, userId: string): Promise<MediaRecord>;
  /**
   * Reads the metadata, applies `mutate` and writes the result, all in one
   * transaction. `mutate` may throw (e.g. a conflict) to abort without writing.
   */
  mutateMetadata(id: string, userId: string, mutate: (metadata: Metadata) => Metadata): Promise<MediaRecord>;
  /**
   * Sets top-level keys of an item's `exif` document (server-derived facts, such as `webVideo`, the
   * web-playable copy of a video), keeping the others; updatedAt kept (nobody edited it). `takenAt`: the capture time.
   * Null when the item is not there or not active.
   */
  mergeExif(id: string, patch: Record<string, unknown>, takenAt?: string | null): Promise<MediaRecord | null>;
  /**
   * Soft-deletes the item with all its versions, frames and objects, and for a
   * folder everything beneath it; decrements the storage counter.
   * Returns how many media rows changed to deleted.
   */
  softDelete(id: string, userId: string): Promise<{ deletedCount: number }>;
  /** Sets the flags of these active items (with their versions), one transaction; how many named items changed. */
  setFlags(ids: string[], patch: { favorite?: boolean; archived?: boolean }): Promise<number>;
  /** softDelete for many, one transaction, one trash entry each; ids naming nothing active are skipped. */
  trash(ids: string[], userId: string): Promise<{ deletedCount: number }>;
  /**
   * Puts trash entries (the ids trash/softDelete named) back where they were, one transaction; folders on the
   * way come back or are made again (same id and name); other ids are skipped. How many rows became active.
   */
  restore(ids: string[]): Promise<{ restoredCount: number }>;
  /** Moves the item (with its versions) or the folder's whole subtree under `destinationPath`; returns the new path. */
  move(id: string, destinationPath: string, userId: string): Promise<string>;
  browse(query: BrowseQuery): Promise<{ items: MediaRecord[]; total: number }>;
  /** Ids of every item the query's filters let through (no paging, no sort), at most `cap`; for scored search. */
  browseIds(query: BrowseQuery, cap: number): Promise<string[]>;
  /** Several items by id (any status), in no particular order. */
  getMany(ids: string[]): Promise<MediaRecord[]>;
  /** getMany narrowed to MediaSummary's fields (organization search reads its candidates' items to fill a page). */
  summaries(ids: string[]): Promise<MediaSummary[]>;
  folderSummaries(folderPaths: string[]): Promise<Map<string, FolderSummary>>;
  /**
   * The live folders directly inside `parentPath` (a collection root label or a folder path), by name
   * (case-insensitive) then id, one page of `limit` from `offset`, with `total` the number of such folders.
   */
  childFolders(
    parentPath: string,
    page: { limit: number; offset: number },
  ): Promise<{ folders: ChildFolder[]; total: number }>;
  /** Number of active versions per root id (1 for an original with no edits). */
  versionCounts(rootIds: string[]): Promise<Map<string, number>>;
  /** Tag groups of active, current items: group → sorted distinct values. */
  tagGroups(collectionId: string): Promise<Record<string, string[]>>;
  /** The original and all its active derived versions, oldest first. */
  listVersions(rootId: string): Promise<MediaRecord[]>;
  /** Deletes one version; when it was current, the newest remaining version becomes current. */
  deleteVersion(
    rootId: string,
    versionId: string,
    userId: string,
  ): Promise<{ deletedId: string; promotedId: string | null }>;
  /** Makes this version the current one of its root. */
  selectVersion(versionId: string, userId: string): Promise<MediaRecord>;
  /**
   * Sets the processing status and error; when either changed, appends a `media.status` event in the same
   * transaction (with the stages that wait for a model, once `ready`).
   */
  setProcessingStatus(id: string, status: ProcessingStatus, error: string | null): Promise<void>;
  /** Ids of active items still `pending` or `processing` (to make sure each has its ingest job after a crash). */
  unfinishedIds(limit: number, afterId?: string): Promise<string[]>;
  /**
   * Which of these blob keys some media (its file, its video's web copy `exif.webVideo.key`, its Live Photo
   * motion `exif.livePhoto.key`), frame (its
   * file or a rendition) or object row (any status) still references.
   */
  referencedBlobKeys(keys: string[]): Promise<Set<string>>;
  /**
   * Every blob referenced by the items (not folders, any status) after `afterId` in id order, a page of `limit`
   * items: each item's own file, its frames' files and renditions, its objects' crops. `next` is the page's last
   * item id (pass it as `afterId`), null when no item is left. The integrity report walks the library with it.
   */
  blobReferences(limit: number, afterId?: string): Promise<{ references: BlobReference[]; next: string | null }>;
  /**
   * How many queued or running jobs of this type are keyed by an item of the organization (jobs queued
   * per item carry its id as their key): the progress of a re-index or a backfill, per organization.
   */
  pendingItemJobs(type: string, organizationId: string): Promise<number>;
  /** Active items (not folders) of the organization whose own file is this blob, current versions first, then newest first. */
  findByBlobKey(organizationId: string, blobKey: string): Promise<MediaRecord[]>;
  /**
   * Active items of the collection whose `exif.capture.contentIdentifier` is this (the two halves of a Live
   * Photo share one), oldest first; indexed (migration 026).
   */
  findByContentIdentifier(collectionId: string, contentIdentifier: string): Promise<MediaRecord[]>;
  /**
   * For each content hash (sha256 hex) an active item (not a folder, any version) of the collection whose own
   * file has those bytes (the current version first, then the oldest); hashes without one are left out.
   */
  findByContent(
    collectionId: string,
    sha256s: string[],
  ): Promise<Array<{ sha256: string; mediaId: string; path: string; parentPath: string; name: string }>>;
}

export interface AnalysisStore {
  /**
   * Makes a video's active frames the given ones. A frame whose timestamp was
   * already there keeps its id (and the user's captions and objects on it) and
   * gets the new file; new timestamps are added; frames no longer sampled are
   * deleted with what hangs off them. Returns the active frames in time order.
   */
  syncFrames(mediaId: string, frames: NewFrame[], userId: string): Promise<FrameRecord[]>;
  /** Active frames of an item in time order. */
  framesOf(mediaId: string): Promise<FrameRecord[]>;
  /**
   * Records a frame's renditions, made from `fromBlobKey`; false (nothing written) when the frame is gone
   * or has another file by now (a re-extraction replaced it meanwhile). When it is its item's first
   * active frame, a `media.thumbnail` event is appended in the same transaction.
   */
  setFrameRenditions(frameId: string, fromBlobKey: string, renditions: FrameRenditions): Promise<boolean>;
  /**
   * Ids of active items (ready or failed: the others' ingest makes them) with an active frame that lacks
   * renditions, in id order, after `afterId`, at most `limit` (the backfill).
   */
  itemsLackingRenditions(limit: number, afterId?: string): Promise<string[]>;
  /**
   * Replaces the model-made captions and objects (and their embeddings) of one
   * frame in one transaction; rows the user made or edited are kept. Running it
   * twice with the same input leaves the same rows: no duplicates.
   */
  replaceFrameAnalysis(frameId: string, result: { captions: NewCaption[]; objects: NewObject[] }): Promise<void>;
  /**
   * Replaces the model-made objects of one type on a frame (and their embeddings, in the indexes too) with
   * these, in one transaction; the frame's captions, other objects and the user's rows stay. Running it twice
   * leaves the same rows. Phase 2 of ingest writes the whole-frame object (`frame`) with it.
   */
  replaceModelObjects(frameId: string, type: string, objects: NewObject[]): Promise<void>;
  /** The user's own objects on a frame, deleted ones included, so reprocessing does not bring back what they removed. */
  userObjects(frameId: string): Promise<ObjectRecord[]>;
  getObject(id: string): Promise<ObjectRecord | null>;
  /** An object's stored embedding under a similarity model, with the model id it was made with. */
  objectVector(objectId: string, similarityModel: string): Promise<{ modelId: string; vector: Float32Array } | null>;
  /**
   * The vector `modelId` made of a whole frame: its active `frame` object's (phase 2 of ingest writes it), so
   * phase 3 need not embed the frame again; null when there is none.
   */
  frameVector(frameId: string, modelId: string): Promise<Float32Array | null>;
  getFrame(id: string): Promise<FrameRecord | null>;
  /** A user's correction: the object becomes theirs (kept by reprocessing) with the new label, or deleted. */
  correctObject(id: string, change: { label: string } | { deleted: true }): Promise<ObjectRecord>;
  /** Active objects of an item's active frames that carry an `objects` embedding, with the file to embed (re-indexing). */
  objectsToReembed(mediaId: string): Promise<Array<{ objectId: string; blobKey: string }>>;
  /**
   * Adds (or replaces) embeddings under a model, keeping other models' vectors: re-indexing writes beside the
   * old ones. An object stored without a similarity model (a crop not embedded at analysis) takes this one.
   */
  addEmbeddings(
    rows: Array<{ objectId: string; modelId: string; similarityModel: 'objects'; vector: Float32Array }>,
  ): Promise<void>;
  /** A caption the user wrote; reprocessing keeps it. */
  addUserCaption(frameId: string, caption: NewCaption, userId: string): Promise<void>;
  /**
   * Records an item's analysis stages, replacing what an earlier analysis recorded. When a `ready` item's
   * waiting stages change (a catch-up), a `media.status` event is appended in the same transaction.
   */
  setStages(mediaId: string, stages: StageRecord[]): Promise<void>;
  /** The recorded stages of these items, by media id (items never analysed are absent). */
  stagesOf(mediaIds: string[]): Promise<Map<string, StageRecord[]>>;
  /**
   * Ids of active, `ready` items with a stage waiting for one of these models, in id order,
   * after `afterId`, at most `limit` (the catch-up after a model is installed).
   */
  waitingFor(models: string[], limit: number, afterId?: string): Promise<string[]>;
}

/**
 * The event log (table events): appended by the stores inside their own transactions (EventWriter) and
 * by append() for events that report no row change (job progress); read by the live streams of
 * GET /api/events; trimmed by age and count.
 */
export interface EventStore {
  /** Appends an event in a transaction of its own. */
  append(event: NewEvent): Promise<EventRecord>;
  /**
   * The organization's events after `afterId`, oldest first, at most `limit`. `collectionId` narrows the
   * events about items to that collection; organization-wide ones (job progress) still come.
   */
  after(query: {
    organizationId: string;
    afterId: number;
    limit: number;
    collectionId?: string | null;
  }): Promise<EventRecord[]>;
  /**
   * `latest`: the newest id handed out (0 when none ever was); `trimmedThrough`: every id up to it is gone
   * from the log (0 when nothing was trimmed). The log holds exactly the ids in between.
   */
  bounds(): Promise<{ trimmedThrough: number; latest: number }>;
  /** Deletes the events older than `olderThan` (ISO) and all but the newest `keep`; how many. */
  trim(olderThan: string, keep: number): Promise<number>;
  /**
   * Calls `listener` after events were appended through this store (coalesced: once for a burst, after the
   * transaction that appended them ended); returns the unsubscribe. Other processes' appends are not heard.
   */
  onAppend(listener: () => void): () => void;
}
