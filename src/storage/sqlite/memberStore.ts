import type { AccountStore } from '../storage.js';
import type { MemberRecord, MembershipChange, Role } from '../types.js';
import type { Db } from './database.js';
import { toUser, type UserRow } from './rows.js';

type MemberRow = UserRow & { role: Role; joined_at: string; last_seen_at: string | null; key_used_at: string | null };

/** Members of an organization on SQLite: the people screen's list, role changes and removal (accountStore.ts). */
export function sqliteMembers(
  db: Db,
): Pick<AccountStore, 'listMembers' | 'setMemberRole' | 'removeMember' | 'touchApiKey' | 'renameApiKey'> {
  const list = db.prepare(
    `SELECT u.*, m.role, m.created_at AS joined_at,
       (SELECT max(s.last_seen_at) FROM sessions s WHERE s.user_id = u.id AND s.organization_id = m.organization_id)
         AS last_seen_at,
       (SELECT max(k.last_used_at) FROM api_keys k WHERE k.user_id = u.id AND k.organization_id = m.organization_id)
         AS key_used_at
     FROM memberships m JOIN users u ON u.id = m.user_id
     WHERE m.organization_id = ? ORDER BY m.created_at, u.id`,
  );
  const roleOf = db.prepare(`SELECT role FROM memberships WHERE organization_id = ? AND user_id = ?`).pluck();
  const owners = db.prepare(`SELECT count(*) FROM memberships WHERE organization_id = ? AND role = 'owner'`).pluck();
  /** Whether the change may go ahead: the member exists and an owner remains. */
  const check = (organizationId: string, userId: string, keepsOwner: boolean): MembershipChange => {
    const role = roleOf.get(organizationId, userId) as Role | undefined;
    if (!role) return 'not_member';
    if (role === 'owner' && !keepsOwner && (owners.get(organizationId) as number) <= 1) return 'last_owner';
    return 'ok';
  };
  return {
    async listMembers(organizationId) {
      return (list.all(organizationId) as MemberRow[]).map((r): MemberRecord => ({
        user: toUser(r),
        role: r.role,
        joinedAt: r.joined_at,
        lastSeenAt: r.last_seen_at,
        keyLastUsedAt: r.key_used_at,
      }));
    },
    async setMemberRole(organizationId, userId, role) {
      return db
        .transaction(() => {
          const verdict = check(organizationId, userId, role === 'owner');
          if (verdict === 'ok')
            db.prepare(`UPDATE memberships SET role = ? WHERE organization_id = ? AND user_id = ?`).run(
              role,
              organizationId,
              userId,
            );
          return verdict;
        })
        .immediate();
    },
    async removeMember(organizationId, userId, at) {
      return db
        .transaction(() => {
          const verdict = check(organizationId, userId, false);
          if (verdict !== 'ok') return verdict;
          db.prepare(`DELETE FROM memberships WHERE organization_id = ? AND user_id = ?`).run(organizationId, userId);
          db.prepare(
            `UPDATE api_keys SET revoked_at = ? WHERE organization_id = ? AND user_id = ? AND revoked_at IS NULL`,
          ).run(at, organizationId, userId);
          db.prepare(
            `UPDATE sessions SET revoked_at = ? WHERE organization_id = ? AND user_id = ? AND revoked_at IS NULL`,
          ).run(at, organizationId, userId);
          return verdict;
        })
        .immediate();
    },
    async renameApiKey(id, name) {
      db.prepare(`UPDATE api_keys SET name = ? WHERE id = ?`).run(name, id);
    },
    async touchApiKey(id, at) {
      db.prepare(`UPDATE api_keys SET last_used_at = ? WHERE id = ?`).run(at, id);
    },
  };
}
