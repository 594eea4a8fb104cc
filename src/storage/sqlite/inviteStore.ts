import type { InviteStore } from '../storage.js';
import type { InviteRecord, Role } from '../types.js';
import type { Db } from './database.js';

export interface InviteRow {
  id: string;
  organization_id: string;
  email: string;
  role: Role;
  token_hash: string;
  invited_by: string;
  created_at: string;
  expires_at: string;
  accepted_at: string | null;
  accepted_by: string | null;
  revoked_at: string | null;
}

export const toInvite = (r: InviteRow): InviteRecord => ({
  id: r.id,
  organizationId: r.organization_id,
  email: r.email,
  role: r.role,
  tokenHash: r.token_hash,
  invitedBy: r.invited_by,
  createdAt: r.created_at,
  expiresAt: r.expires_at,
  acceptedAt: r.accepted_at,
  acceptedBy: r.accepted_by,
  revokedAt: r.revoked_at,
});

const PENDING = `accepted_at IS NULL AND revoked_at IS NULL AND expires_at > ?`;

/** Invites on SQLite (table `invites`, migration 012). */
export function sqliteInviteStore(db: Db): InviteStore {
  const byId = db.prepare(`SELECT * FROM invites WHERE id = ?`);
  return {
    async create(invite) {
      db.prepare(
        `INSERT INTO invites (id, organization_id, email, role, token_hash, invited_by, created_at, expires_at,
           accepted_at, accepted_by, revoked_at)
         VALUES (@id, @organizationId, @email, @role, @tokenHash, @invitedBy, @createdAt, @expiresAt, @acceptedAt,
           @acceptedBy, @revokedAt)`,
      ).run(invite);
    },
    async get(id) {
      const row = byId.get(id) as InviteRow | undefined;
      return row ? toInvite(row) : null;
    },
    async findByTokenHash(tokenHash) {
      const row = db.prepare(`SELECT * FROM invites WHERE token_hash = ?`).get(tokenHash) as InviteRow | undefined;
      return row ? toInvite(row) : null;
    },
    async listPending(organizationId, now) {
      const rows = db
        .prepare(`SELECT * FROM invites WHERE organization_id = ? AND ${PENDING} ORDER BY created_at, id`)
        .all(organizationId, now) as InviteRow[];
      return rows.map(toInvite);
    },
    async revoke(id, at) {
      return db.prepare(`UPDATE invites SET revoked_at = ? WHERE id = ? AND ${PENDING}`).run(at, id, at).changes > 0;
    },
    async revokePendingFor(organizationId, email, at) {
      return db
        .prepare(`UPDATE invites SET revoked_at = ? WHERE organization_id = ? AND email = ? AND ${PENDING}`)
        .run(at, organizationId, email, at).changes;
    },
    async accept(id, at, member) {
      return db.transaction(() => {
        // Taken first (the claim), named after the user exists (accepted_by references users).
        const taken = db
          .prepare(`UPDATE invites SET accepted_at = ? WHERE id = ? AND ${PENDING}`)
          .run(at, id, at).changes;
        if (taken === 0) return false;
        const invite = toInvite(byId.get(id) as InviteRow);
        const fresh = member.newUser;
        if (fresh)
          db.prepare(`INSERT INTO users (id, email, name, created_at, password_hash) VALUES (?, ?, ?, ?, ?)`).run(
            fresh.user.id,
            fresh.user.email,
            fresh.user.name,
            fresh.user.createdAt,
            fresh.passwordHash,
          );
        db.prepare(`UPDATE invites SET accepted_by = ? WHERE id = ?`).run(member.userId, id);
        db.prepare(
          `INSERT INTO memberships (organization_id, user_id, role, created_at) VALUES (?, ?, ?, ?)
           ON CONFLICT (organization_id, user_id) DO NOTHING`,
        ).run(invite.organizationId, member.userId, invite.role, at);
        return true;
      })();
    },
  };
}
