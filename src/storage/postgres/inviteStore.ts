import type { PgDb } from '../../platform/pgDb.js';
import type { InviteStore } from '../storage.js';
import { toInvite, type InviteRow } from '../sqlite/inviteStore.js';

/** Pending at the time in parameter $N: not accepted, not revoked, not expired. */
const pending = (n: number) => `accepted_at IS NULL AND revoked_at IS NULL AND expires_at > $${n}`;

/** Invites on PostgreSQL (table invites). */
export function pgInviteStore(db: PgDb): InviteStore {
  const byId = async (id: string) => db.one<InviteRow>(`SELECT * FROM invites WHERE id = $1`, [id]);
  return {
    async create(i) {
      await db.query(
        `INSERT INTO invites (id, organization_id, email, role, token_hash, invited_by, created_at, expires_at,
           accepted_at, accepted_by, revoked_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
        [
          i.id,
          i.organizationId,
          i.email,
          i.role,
          i.tokenHash,
          i.invitedBy,
          i.createdAt,
          i.expiresAt,
          i.acceptedAt,
          i.acceptedBy,
          i.revokedAt,
        ],
      );
    },
    async get(id) {
      const row = await byId(id);
      return row ? toInvite(row) : null;
    },
    async findByTokenHash(tokenHash) {
      const row = await db.one<InviteRow>(`SELECT * FROM invites WHERE token_hash = $1`, [tokenHash]);
      return row ? toInvite(row) : null;
    },
    async listPending(organizationId, now) {
      const rows = await db.many<InviteRow>(
        `SELECT * FROM invites WHERE organization_id = $1 AND ${pending(2)} ORDER BY created_at, id`,
        [organizationId, now],
      );
      return rows.map(toInvite);
    },
    async revoke(id, at) {
      const result = await db.query(`UPDATE invites SET revoked_at = $2 WHERE id = $1 AND ${pending(2)}`, [id, at]);
      return (result.rowCount ?? 0) > 0;
    },
    async revokePendingFor(organizationId, email, at) {
      const result = await db.query(
        `UPDATE invites SET revoked_at = $3 WHERE organization_id = $1 AND email = $2 AND ${pending(3)}`,
        [organizationId, email, at],
      );
      return result.rowCount ?? 0;
    },
    async accept(id, at, member) {
      return db.tx(async (tx) => {
        // Taken first (the claim; the row lock makes a racing accept wait, then find it taken).
        const invite = await tx.one<InviteRow>(
          `UPDATE invites SET accepted_at = $2 WHERE id = $1 AND ${pending(2)} RETURNING *`,
          [id, at],
        );
        if (!invite) return false;
        const fresh = member.newUser;
        if (fresh)
          await tx.query(`INSERT INTO users (id, email, name, created_at, password_hash) VALUES ($1, $2, $3, $4, $5)`, [
            fresh.user.id,
            fresh.user.email,
            fresh.user.name,
            fresh.user.createdAt,
            fresh.passwordHash,
          ]);
        await tx.query(`UPDATE invites SET accepted_by = $2 WHERE id = $1`, [id, member.userId]);
        await tx.query(
          `INSERT INTO memberships (organization_id, user_id, role, created_at) VALUES ($1, $2, $3, $4)
           ON CONFLICT (organization_id, user_id) DO NOTHING`,
          [invite.organization_id, member.userId, invite.role, at],
        );
        return true;
      });
    },
  };
}
