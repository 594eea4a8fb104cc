import type { SessionStore } from '../storage.js';
import type { SessionRecord } from '../types.js';
import type { Db } from './database.js';

export interface SessionRow {
  id: string;
  user_id: string;
  organization_id: string;
  secret_hash: string;
  csrf_token: string;
  created_at: string;
  last_seen_at: string;
  expires_at: string;
  revoked_at: string | null;
  user_agent: string | null;
  ip: string | null;
}

export const toSession = (r: SessionRow): SessionRecord => ({
  id: r.id,
  userId: r.user_id,
  organizationId: r.organization_id,
  secretHash: r.secret_hash,
  csrfToken: r.csrf_token,
  createdAt: r.created_at,
  lastSeenAt: r.last_seen_at,
  expiresAt: r.expires_at,
  revokedAt: r.revoked_at,
  userAgent: r.user_agent,
  ip: r.ip,
});

/** Ended sessions are kept this long (for nobody in particular; a bound on the table), then pruned at the next sign-in. */
const KEEP_ENDED_MS = 30 * 86_400_000;

const LIVE = `revoked_at IS NULL AND expires_at > ? AND last_seen_at > ?`;

/** Sessions and sign-in failures on SQLite (tables `sessions`, `login_failures`, migration 012). */
export function sqliteSessionStore(db: Db): SessionStore {
  const insert = db.prepare(
    `INSERT INTO sessions (id, user_id, organization_id, secret_hash, csrf_token, created_at, last_seen_at, expires_at,
       revoked_at, user_agent, ip)
     VALUES (@id, @userId, @organizationId, @secretHash, @csrfToken, @createdAt, @lastSeenAt, @expiresAt, @revokedAt,
       @userAgent, @ip)`,
  );
  const prune = db.prepare(
    `DELETE FROM sessions WHERE user_id = ? AND (expires_at < ? OR revoked_at < ? OR last_seen_at < ?)`,
  );
  return {
    async create(session) {
      const before = new Date(Date.parse(session.createdAt) - KEEP_ENDED_MS).toISOString();
      db.transaction(() => {
        prune.run(session.userId, before, before, before);
        insert.run(session);
      })();
    },
    async get(id) {
      const row = db.prepare(`SELECT * FROM sessions WHERE id = ?`).get(id) as SessionRow | undefined;
      return row ? toSession(row) : null;
    },
    async findLive(secretHash, now, idleSince) {
      const row = db
        .prepare(`SELECT * FROM sessions WHERE secret_hash = ? AND ${LIVE}`)
        .get(secretHash, now, idleSince) as SessionRow | undefined;
      return row ? toSession(row) : null;
    },
    async listLive(userId, now, idleSince) {
      const rows = db
        .prepare(`SELECT * FROM sessions WHERE user_id = ? AND ${LIVE} ORDER BY created_at DESC, id DESC`)
        .all(userId, now, idleSince) as SessionRow[];
      return rows.map(toSession);
    },
    async touch(id, at) {
      db.prepare(`UPDATE sessions SET last_seen_at = ? WHERE id = ? AND last_seen_at < ?`).run(at, id, at);
    },
    async setOrganization(id, organizationId) {
      db.prepare(`UPDATE sessions SET organization_id = ? WHERE id = ?`).run(organizationId, id);
    },
    async revoke(id, userId, at) {
      return (
        db
          .prepare(`UPDATE sessions SET revoked_at = ? WHERE id = ? AND user_id = ? AND revoked_at IS NULL`)
          .run(at, id, userId).changes > 0
      );
    },
    async revokeAllForUser(userId, at, exceptId) {
      return db
        .prepare(`UPDATE sessions SET revoked_at = ? WHERE user_id = ? AND revoked_at IS NULL AND id IS NOT ?`)
        .run(at, userId, exceptId).changes;
    },
    async recordFailure(email, at, pruneBefore) {
      db.transaction(() => {
        db.prepare(`DELETE FROM login_failures WHERE at < ?`).run(pruneBefore);
        db.prepare(`INSERT INTO login_failures (email, at) VALUES (?, ?)`).run(email, at);
      })();
    },
    async failuresSince(email, since) {
      return db
        .prepare(`SELECT at FROM login_failures WHERE email = ? AND at >= ? ORDER BY at`)
        .pluck()
        .all(email, since) as string[];
    },
    async clearFailures(email) {
      db.prepare(`DELETE FROM login_failures WHERE email = ?`).run(email);
    },
  };
}
