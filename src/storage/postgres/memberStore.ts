import type { PgDb, PgTx } from '../../platform/pgDb.js';
import type { AccountStore } from '../storage.js';
import type { MemberRecord, MembershipChange, Role } from '../types.js';
import { toUser, type UserRow } from '../sqlite/rows.js';

type MemberRow = UserRow & { role: Role; joined_at: string; last_seen_at: string | null; key_used_at: string | null };

/**
 * Whether the change may go ahead: the member exists and an owner remains. The organization's owner rows are
 * locked first, so two owners demoting each other at once cannot both succeed.
 */
async function check(tx: PgTx, organizationId: string, userId: string, keepsOwner: boolean) {
  const owners = await tx.many<{ user_id: string }>(
    `SELECT user_id FROM memberships WHERE organization_id = $1 AND role = 'owner' ORDER BY user_id FOR UPDATE`,
    [organizationId],
  );
  const row = await tx.one<{ role: Role }>(
    `SELECT role FROM memberships WHERE organization_id = $1 AND user_id = $2 FOR UPDATE`,
    [organizationId, userId],
  );
  if (!row) return 'not_member';
  if (row.role === 'owner' && !keepsOwner && owners.length <= 1) return 'last_owner';
  return 'ok';
}

/** Members of an organization on PostgreSQL, as on SQLite (sqlite/memberStore.ts). */
export function pgMembers(
  db: PgDb,
): Pick<AccountStore, 'listMembers' | 'setMemberRole' | 'removeMember' | 'touchApiKey' | 'renameApiKey'> {
  return {
    async listMembers(organizationId) {
      const rows = await db.many<MemberRow>(
        `SELECT u.id, u.email, u.name, u.created_at, m.role, m.created_at AS joined_at,
           (SELECT max(s.last_seen_at) FROM sessions s WHERE s.user_id = u.id AND s.organization_id = m.organization_id)
             AS last_seen_at,
           (SELECT max(k.last_used_at) FROM api_keys k WHERE k.user_id = u.id AND k.organization_id = m.organization_id)
             AS key_used_at
         FROM memberships m JOIN users u ON u.id = m.user_id
         WHERE m.organization_id = $1 ORDER BY m.created_at, u.id`,
        [organizationId],
      );
      return rows.map((r): MemberRecord => ({
        user: toUser(r),
        role: r.role,
        joinedAt: r.joined_at,
        lastSeenAt: r.last_seen_at,
        keyLastUsedAt: r.key_used_at,
      }));
    },
    async setMemberRole(organizationId, userId, role) {
      return db.tx(async (tx): Promise<MembershipChange> => {
        const verdict = await check(tx, organizationId, userId, role === 'owner');
        if (verdict === 'ok')
          await tx.query(`UPDATE memberships SET role = $1 WHERE organization_id = $2 AND user_id = $3`, [
            role,
            organizationId,
            userId,
          ]);
        return verdict;
      });
    },
    async removeMember(organizationId, userId, at) {
      return db.tx(async (tx): Promise<MembershipChange> => {
        const verdict = await check(tx, organizationId, userId, false);
        if (verdict !== 'ok') return verdict;
        const args = [at, organizationId, userId];
        await tx.query(`DELETE FROM memberships WHERE organization_id = $1 AND user_id = $2`, args.slice(1));
        await tx.query(
          `UPDATE api_keys SET revoked_at = $1 WHERE organization_id = $2 AND user_id = $3 AND revoked_at IS NULL`,
          args,
        );
        await tx.query(
          `UPDATE sessions SET revoked_at = $1 WHERE organization_id = $2 AND user_id = $3 AND revoked_at IS NULL`,
          args,
        );
        return verdict;
      });
    },
    async renameApiKey(id, name) {
      await db.query(`UPDATE api_keys SET name = $1 WHERE id = $2`, [name, id]);
    },
    async touchApiKey(id, at) {
      await db.query(`UPDATE api_keys SET last_used_at = $1 WHERE id = $2`, [at, id]);
    },
  };
}
