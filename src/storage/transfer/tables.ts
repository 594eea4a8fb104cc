/**
 * What `npm run migrate` copies from a SQLite library into PostgreSQL, in an order that satisfies the
 * foreign keys, and how each table is walked: by its primary key (keyset pages), or by SQLite's rowid
 * where it has none. Both engines share table and column names (src/storage/postgres/migrations/001).
 *
 * Not copied: SQLite's own speed structures (media_scope, bitmaps, ranks, live counts, the FTS5 index and
 * the vec0 tables) — PostgreSQL's indexes and triggers rebuild their equivalents as rows arrive; the event
 * log (a transient feed: streams start again from the new server's log); finished jobs (history only).
 */
export interface TransferTable {
  name: string;
  /** Columns that order and resume the walk (the primary key); empty: SQLite's rowid. */
  key: string[];
  /** A WHERE clause on the SQLite side: what of the table is copied (default: every row). */
  where?: string;
}

export const TRANSFER_TABLES: TransferTable[] = [
  { name: 'settings', key: ['key'] },
  { name: 'organizations', key: ['id'] },
  { name: 'users', key: ['id'] },
  { name: 'memberships', key: ['organization_id', 'user_id'] },
  { name: 'api_keys', key: ['id'] },
  { name: 'sessions', key: ['id'] },
  { name: 'invites', key: ['id'] },
  { name: 'login_failures', key: [] },
  { name: 'collections', key: ['id'] },
  { name: 'media', key: ['id'] },
  { name: 'media_tags', key: ['media_id', 'grp', 'value'] },
  { name: 'frames', key: ['id'] },
  { name: 'captions', key: ['id'] },
  { name: 'detected_objects', key: ['id'] },
  { name: 'object_embeddings', key: ['object_id', 'model_id'] },
  { name: 'media_stages', key: ['media_id', 'stage'] },
  { name: 'trash', key: ['id'] },
  { name: 'watched_folders', key: ['id'] },
  { name: 'watched_files', key: ['watch_id', 'rel_path'] },
  { name: 'albums', key: ['id'] },
  { name: 'album_items', key: ['album_id', 'media_id'] },
  { name: 'share_links', key: ['id'] },
  { name: 'share_link_items', key: ['link_id', 'media_id'] },
  { name: 'share_audit', key: ['id'] },
  { name: 'clusters', key: ['id'] },
  { name: 'cluster_members', key: ['object_id', 'model_id'] },
  // People's "not duplicates" decisions (a scan's groups are made again by the next scan).
  { name: 'duplicate_dismissals', key: ['dataset_id', 'media_ids'] },
  { name: 'cluster_pins', key: ['object_id', 'model_id'] },
  // People's "not the same person" decisions on the merge suggestions.
  { name: 'cluster_dismissals', key: ['dataset_id', 'a', 'b'] },
  // Filled by PostgreSQL's trigger as face embeddings arrive; replaced by SQLite's own list (transfer.ts).
  { name: 'cluster_pending', key: ['seq'] },
  { name: 'jobs', key: ['id'], where: `status IN ('queued', 'running')` },
];
