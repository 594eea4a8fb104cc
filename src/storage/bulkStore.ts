import type { Metadata } from './types.js';

/** One tag: a value in a group. */
export interface TagPair {
  group: string;
  value: string;
}

/**
 * A change to the tags of every selected item: add values, remove values (a group named without a value goes
 * whole), or make a group hold exactly these values (none: the group goes).
 */
export type TagEdit =
  | { kind: 'add'; tags: TagPair[] }
  | { kind: 'remove'; tags: Array<{ group: string; value?: string }> }
  | { kind: 'setGroup'; group: string; values: string[] };

/** Who acts, and the action's record: kept as the user's last bulk action (one per user and organization). */
export interface NewBulkAction {
  id: string;
  organizationId: string;
  userId: string;
  /** The operation as the client asked for it (shown back; undo reads `changes`, never this). */
  operation: Record<string, unknown>;
}

export interface BulkActionRecord {
  id: string;
  organizationId: string;
  userId: string;
  operation: Record<string, unknown>;
  /** Items the action changed (those already as asked are not counted, nor recorded). */
  changedCount: number;
  createdAt: string;
  undoneAt: string | null;
}

export interface BulkResult {
  changed: number;
  unchanged: number;
}

/**
 * Bulk changes of many items, each in one transaction (all or nothing), with the tag index, the browse bitmaps
 * and the text index kept in step as the single-item writes keep them, and the user's last action recorded
 * with exactly what it changed, so that it can be undone (an action that changed nothing is not recorded: the
 * one before stays the last). Every id must name an active item of
 * `action.organizationId`: otherwise nothing is written and a not-found error is thrown.
 */
export interface BulkStore {
  editTags(action: NewBulkAction, ids: string[], edit: TagEdit): Promise<BulkResult>;
  /** Moves items (with their versions) and folders (with their subtrees) under `destinationPath`. */
  move(action: NewBulkAction, ids: string[], destinationPath: string): Promise<BulkResult>;
  /** Sets favourite and/or archived (on every version); records the items whose flag changed, with the old value. */
  setFlags(action: NewBulkAction, ids: string[], patch: FlagPatch): Promise<BulkResult>;
  /** Moves items (with their versions) and folders (with their subtrees) to the trash, one entry each. */
  trash(action: NewBulkAction, ids: string[]): Promise<BulkResult>;
  /**
   * Puts trash entries (ids of `action.organizationId`'s entries; other ids are not found) back where they were;
   * records when and by whom each was deleted, so that undo trashes it again as it was.
   */
  restore(action: NewBulkAction, ids: string[]): Promise<BulkResult>;
  /** The user's last bulk action in the organization (undone or not), or null. */
  last(organizationId: string, userId: string): Promise<BulkActionRecord | null>;
  /**
   * Reverses exactly what the action changed, in one transaction: the tags it added go, those it removed come
   * back, moved items go back where they were, flags are set back, trashed items are restored and restored ones
   * trashed again with their old deletion time and user. Items deleted (or restored, or purged) since are left
   * out. Not found unless it is this user's last action; a conflict when it was undone already or an item's old
   * folder is gone.
   */
  undo(actionId: string, organizationId: string, userId: string): Promise<{ reverted: number }>;
}

/** What one item's tags lost and gained. */
export interface TagDelta {
  added: Array<[string, string]>;
  removed: Array<[string, string]>;
}

/** An item's tag groups as a Map of sorted values (group names are user strings: never plain-object keys). */
export function tagMap(metadata: Metadata): Map<string, string[]> {
  const tags = metadata.tags;
  const out = new Map<string, string[]>();
  if (!tags || typeof tags !== 'object' || Array.isArray(tags)) return out;
  for (const [group, values] of Object.entries(tags)) {
    if (Array.isArray(values))
      out.set(
        group,
        values.filter((v): v is string => typeof v === 'string'),
      );
  }
  return out;
}

const sortedUnique = (values: string[]) => [...new Set(values)].sort();

/** Applies the edit to the tags (in place) and answers what changed. */
export function applyTagEdit(tags: Map<string, string[]>, edit: TagEdit): TagDelta {
  const delta: TagDelta = { added: [], removed: [] };
  const add = (group: string, value: string) => {
    const values = tags.get(group) ?? [];
    if (values.includes(value)) return;
    tags.set(group, sortedUnique([...values, value]));
    delta.added.push([group, value]);
  };
  const remove = (group: string, value: string) => {
    const values = tags.get(group);
    if (!values || !values.includes(value)) return;
    const left = values.filter((v) => v !== value);
    if (left.length) tags.set(group, left);
    else tags.delete(group);
    delta.removed.push([group, value]);
  };
  if (edit.kind === 'add') for (const t of edit.tags) add(t.group, t.value);
  else if (edit.kind === 'remove') {
    for (const t of edit.tags) {
      if (t.value !== undefined) remove(t.group, t.value);
      else for (const v of [...(tags.get(t.group) ?? [])]) remove(t.group, v);
    }
  } else {
    const want = new Set(edit.values);
    for (const v of [...(tags.get(edit.group) ?? [])]) if (!want.has(v)) remove(edit.group, v);
    for (const v of want) add(edit.group, v);
  }
  return delta;
}

/** The inverse of a recorded delta, as an edit of the same item: what was added goes, what was removed comes back. */
export function revertDelta(tags: Map<string, string[]>, delta: TagDelta): TagDelta {
  const out: TagDelta = { added: [], removed: [] };
  const a = applyTagEdit(tags, { kind: 'remove', tags: delta.added.map(([group, value]) => ({ group, value })) });
  const b = applyTagEdit(tags, { kind: 'add', tags: delta.removed.map(([group, value]) => ({ group, value })) });
  out.removed.push(...a.removed);
  out.added.push(...b.added);
  return out;
}

/** The metadata with these tag groups (every other key kept). */
export const withTags = (metadata: Metadata, tags: Map<string, string[]>): Metadata => ({
  ...metadata,
  tags: Object.fromEntries(tags),
});

/** Favourite and archived flags to set (a flag left out stays as it is). */
export interface FlagPatch {
  favorite?: boolean;
  archived?: boolean;
}

/**
 * One item's change as the action records it: its tag delta (`a`, `r`), the folder it was moved out of
 * (`from`), its flags before (`flags`), that it went to the trash (`trashed`), or when and by whom it had been
 * deleted before it was restored (`restored`).
 */
export type RecordedChange = {
  id: string;
  a?: Array<[string, string]>;
  r?: Array<[string, string]>;
  from?: string;
  flags?: FlagPatch;
  trashed?: true;
  restored?: { at: string; by: string };
};

/** Whether the change is one of the trash and flag kinds (undone by the trash stores' writes, not rowsOf). */
export const isTrashOrFlag = (c: RecordedChange): boolean =>
  c.flags !== undefined || c.trashed !== undefined || c.restored !== undefined;

// Storage.bulk is declared here, beside its interface (storage.ts is at the 400-line limit): both engines' stores
// (sqlite/index.ts, postgres/index.ts) provide it.
declare module './storage.js' {
  interface Storage {
    /** Many items at once, each change all or nothing, with the user's last one to undo (POST /api/media/bulk). */
    bulk: BulkStore;
  }
}

/** A `bulk_actions` row as both engines read it (timestamps as text). */
export interface BulkActionRow {
  id: string;
  organization_id: string;
  user_id: string;
  operation: string;
  changed_count: number;
  changes: string;
  created_at: string;
  undone_at: string | null;
}

/** The record of a `bulk_actions` row; `toIso` turns the engine's timestamp text into ISO 8601 (SQLite's already is). */
export function toBulkAction(r: BulkActionRow, toIso: (at: string) => string = (at) => at): BulkActionRecord {
  return {
    id: r.id,
    organizationId: r.organization_id,
    userId: r.user_id,
    operation: JSON.parse(r.operation) as Record<string, unknown>,
    changedCount: r.changed_count,
    createdAt: toIso(r.created_at),
    undoneAt: r.undone_at ? toIso(r.undone_at) : null,
  };
}
