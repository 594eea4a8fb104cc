import type { MemberRecord, MembershipChange, ProcessingStatus, Role } from './types.js';

/** The organization's items (not folders) of one collection in one record and processing status. */
export interface UsageRow {
  collectionId: string;
  /** The record status (`active`, `deleted`, …): counted as the store has it. */
  status: string;
  processingStatus: ProcessingStatus;
  items: number;
  /** Sum of the items' original file sizes (every version counts: each has its own file). */
  bytes: number;
}

/** What the storage screen (/admin/storage) reads (Storage.usage): counts and sizes, computed by the database. */
export interface UsageStore {
  byCollection(organizationId: string): Promise<UsageRow[]>;
  /** The database's size on disk in bytes (SQLite: the file and its WAL; PostgreSQL: the schema's relations). */
  databaseBytes(): Promise<number>;
}

/** The people screen's part of the AccountStore (/admin/people; implemented in each engine's memberStore.ts). */
export interface MemberAccounts {
  /** The organization's members, oldest first, with their latest session and key activity there. */
  listMembers(organizationId: string): Promise<MemberRecord[]>;
  /** Changes a member's role in one transaction; `last_owner` (nothing changed) when no owner would be left. */
  setMemberRole(organizationId: string, userId: string, role: Role): Promise<MembershipChange>;
  /**
   * Removes the membership in one transaction, revoking the user's keys in the organization and ending their
   * sessions acting in it; `last_owner` (nothing changed) when no owner would be left.
   */
  removeMember(organizationId: string, userId: string, at: string): Promise<MembershipChange>;
  renameApiKey(id: string, name: string): Promise<void>;
  /** Records a key's use (the caller spares writes: at most once a minute). */
  touchApiKey(id: string, at: string): Promise<void>;
}

/*
 * The administration screens' stores join the Storage interface here (TypeScript's interface merging), so that
 * storage.ts stays within its 400 lines: `Storage.usage`, and the AccountStore's member methods. Each engine's
 * index.ts and accountStore.ts implement them; the contract suites test them (test/storage/memberSuite.ts,
 * importSuite.ts).
 */
declare module './storage.js' {
  interface Storage {
    /** Counts and sizes per collection, and the database's size (the storage screen, features/admin). */
    usage: UsageStore;
  }
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- the merge adds the methods of MemberAccounts
  interface AccountStore extends MemberAccounts {}
}
