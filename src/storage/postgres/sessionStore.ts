import type { PgDb } from '../../platform/pgDb.js';
import type { SessionStore } from '../storage.js';
import { toSession, type SessionRow } from '../sqlite/sessionStore.js';

/** Ended sessions are kept this long (a bound on the table), then pruned at the user's next sign-in, as on SQLite. */
const KEEP_ENDED_MS = 30 * 86_400_000;

const LIVE = `revoked_at IS NULL AND expires_at > $2 AND last_seen_at > $3`;

/** Sessions and sign-in failures on PostgreSQL (tables sessions, login_failures). */
export function pgSessionStore(db: PgDb): SessionStore {
  return {
    async create(s) {
      const before = new Date(Date.parse(s.createdAt) - KEEP_ENDED_MS).toISOString();
      await db.tx(async (tx) => {
        await tx.query(
          `DELETE FROM sessions WHERE user_id = $1 AND (expires_at < $2 OR revoked_at < $2 OR last_seen_at < $2)`,
          [s.userId, before],
        );
        await tx.query(
          `INSERT INTO sessions (id, user_id, organization_id, secret_hash, csrf_token, created_at, last_seen_at,
             expires_at, revoked_at, user_agent, ip)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
          [
            s.id,
            s.userId,
            s.organizationId,
            s.secretHash,
            s.csrfToken,
            s.createdAt,
            s.lastSeenAt,
            s.expiresAt,
            s.revokedAt,
            s.userAgent,
            s.ip,
          ],
        );
      });
    },
    async get(id) {
      const row = await db.one<SessionRow>(`SELECT * FROM sessions WHERE id = $1`, [id]);
      return row ? toSession(row) : null;
    },
    async findLive(secretHash, now, idleSince) {
      const row = await db.one<SessionRow>(`SELECT * FROM sessions WHERE secret_hash = $1 AND ${LIVE}`, [
        secretHash,
        now,
        idleSince,
      ]);
      return row ? toSession(row) : null;
    },
    async listLive(userId, now, idleSince) {
      const rows = await db.many<SessionRow>(
        `SELECT * FROM sessions WHERE user_id = $1 AND ${LIVE} ORDER BY created_at DESC, id DESC`,
        [userId, now, idleSince],
      );
      return rows.map(toSession);
    },
    async touch(id, at) {
      await db.query(`UPDATE sessions SET last_seen_at = $2 WHERE id = $1 AND last_seen_at < $2`, [id, at]);
    },
    async setOrganization(id, organizationId) {
      await db.query(`UPDATE sessions SET organization_id = $2 WHERE id = $1`, [id, organizationId]);
    },
    async revoke(id, userId, at) {
      const result = await db.query(
        `UPDATE sessions SET revoked_at = $3 WHERE id = $1 AND user_id = $2 AND revoked_at IS NULL`,
        [id, userId, at],
      );
      return (result.rowCount ?? 0) > 0;
    },
    async revokeAllForUser(userId, at, exceptId) {
      const result = await db.query(
        `UPDATE sessions SET revoked_at = $2 WHERE user_id = $1 AND revoked_at IS NULL AND id IS DISTINCT FROM $3`,
        [userId, at, exceptId],
      );
      return result.rowCount ?? 0;
    },
    ...signInFailures(db),
  };
}

/** The failed sign-ins behind the lockout, per (lowercase) email. */
function signInFailures(db: PgDb): Pick<SessionStore, 'recordFailure' | 'failuresSince' | 'clearFailures'> {
  return {
    async recordFailure(email, at, pruneBefore) {
      await db.tx(async (tx) => {
        await tx.query(`DELETE FROM login_failures WHERE at < $1`, [pruneBefore]);
        await tx.query(`INSERT INTO login_failures (email, at) VALUES ($1, $2)`, [email, at]);
      });
    },
    async failuresSince(email, since) {
      const rows = await db.many<{ at: string }>(
        `SELECT at FROM login_failures WHERE email = $1 AND at >= $2 ORDER BY at`,
        [email, since],
      );
      return rows.map((r) => r.at);
    },
    async clearFailures(email) {
      await db.query(`DELETE FROM login_failures WHERE email = $1`, [email]);
    },
  };
}
