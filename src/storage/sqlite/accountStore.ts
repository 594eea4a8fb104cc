import { slugTaken } from '../storeErrors.js';
import type { AccountStore } from '../storage.js';
import type { ApiKeyRecord, Role, User } from '../types.js';
import type { Db } from './database.js';
import { toApiKey, toOrganization, toUser, type ApiKeyRow, type OrganizationRow, type UserRow } from './rows.js';
import { sqliteMembers } from './memberStore.js';

const now = () => new Date().toISOString();

/** Accounts on SQLite, in parts: organizations, users and memberships, credentials, API keys, settings. */
export function sqliteAccountStore(db: Db): AccountStore {
  return {
    ...organizations(db),
    ...users(db),
    ...credentials(db),
    ...apiKeys(db),
    ...settings(db),
    ...sqliteMembers(db),
  };
}

function organizations(
  db: Db,
): Pick<
  AccountStore,
  | 'countOrganizations'
  | 'createOrganization'
  | 'getOrganization'
  | 'listOrganizations'
  | 'isSlugTaken'
  | 'listOrganizationsForUser'
> {
  const getOrg = db.prepare(`SELECT * FROM organizations WHERE id = ?`);
  return {
    async countOrganizations() {
      return db.prepare(`SELECT count(*) FROM organizations`).pluck().get() as number;
    },
    async createOrganization(org, ownerUserId) {
      const at = now();
      db.transaction(() => {
        if (db.prepare(`SELECT 1 FROM organizations WHERE slug = ?`).get(org.slug)) throw slugTaken(org.slug);
        db.prepare(
          `INSERT INTO organizations (id, name, slug, created_at, created_by_key_id) VALUES (?, ?, ?, ?, ?)`,
        ).run(org.id, org.name, org.slug, at, org.createdByKeyId ?? null);
        db.prepare(
          `INSERT INTO memberships (organization_id, user_id, role, created_at) VALUES (?, ?, 'owner', ?)`,
        ).run(org.id, ownerUserId, at);
      })();
      return toOrganization(getOrg.get(org.id) as OrganizationRow);
    },
    async getOrganization(id) {
      const row = getOrg.get(id) as OrganizationRow | undefined;
      return row ? toOrganization(row) : null;
    },
    async listOrganizations() {
      return (db.prepare(`SELECT * FROM organizations ORDER BY created_at, id`).all() as OrganizationRow[]).map(
        toOrganization,
      );
    },
    async isSlugTaken(slug) {
      return db.prepare(`SELECT 1 FROM organizations WHERE slug = ?`).get(slug) !== undefined;
    },
    async listOrganizationsForUser(userId) {
      const rows = db
        .prepare(
          `SELECT o.*, m.role FROM organizations o JOIN memberships m ON m.organization_id = o.id
           WHERE m.user_id = ? ORDER BY o.created_at, o.id`,
        )
        .all(userId) as Array<OrganizationRow & { role: Role }>;
      return rows.map((row) => ({ ...toOrganization(row), role: row.role }));
    },
  };
}

function users(db: Db): Pick<AccountStore, 'createUser' | 'getUser' | 'getMembershipRole'> {
  return {
    async createUser(user: User) {
      db.prepare(`INSERT INTO users (id, email, name, created_at) VALUES (?, ?, ?, ?)`).run(
        user.id,
        user.email,
        user.name,
        user.createdAt,
      );
      return user;
    },
    async getUser(id) {
      const row = db.prepare(`SELECT * FROM users WHERE id = ?`).get(id) as UserRow | undefined;
      return row ? toUser(row) : null;
    },
    async getMembershipRole(organizationId, userId) {
      const role = db
        .prepare(`SELECT role FROM memberships WHERE organization_id = ? AND user_id = ?`)
        .pluck()
        .get(organizationId, userId) as Role | undefined;
      return role ?? null;
    },
  };
}

function credentials(db: Db): Pick<AccountStore, 'findCredentials' | 'getPasswordHash' | 'updateUser'> {
  return {
    async findCredentials(email) {
      const row = db
        .prepare(`SELECT * FROM users WHERE email = ? COLLATE NOCASE ORDER BY created_at, id LIMIT 1`)
        .get(email) as (UserRow & { password_hash: string | null }) | undefined;
      return row ? { user: toUser(row), passwordHash: row.password_hash } : null;
    },
    async getPasswordHash(userId) {
      return (
        (db.prepare(`SELECT password_hash FROM users WHERE id = ?`).pluck().get(userId) as string | null | undefined) ??
        null
      );
    },
    async updateUser(id, patch) {
      db.prepare(
        `UPDATE users SET email = coalesce(?, email), name = coalesce(?, name), password_hash = coalesce(?, password_hash)
         WHERE id = ?`,
      ).run(patch.email ?? null, patch.name ?? null, patch.passwordHash ?? null, id);
      const row = db.prepare(`SELECT * FROM users WHERE id = ?`).get(id) as UserRow | undefined;
      return row ? toUser(row) : null;
    },
  };
}

function apiKeys(
  db: Db,
): Pick<AccountStore, 'createApiKey' | 'findApiKeyByHash' | 'getApiKey' | 'listApiKeys' | 'revokeApiKey'> {
  return {
    async createApiKey(key: ApiKeyRecord) {
      db.prepare(
        `INSERT INTO api_keys (id, organization_id, user_id, name, role, key_hash, prefix, created_at, revoked_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ).run(
        key.id,
        key.organizationId,
        key.userId,
        key.name,
        key.role,
        key.keyHash,
        key.prefix,
        key.createdAt,
        key.revokedAt,
      );
    },
    async findApiKeyByHash(keyHash) {
      const row = db.prepare(`SELECT * FROM api_keys WHERE key_hash = ? AND revoked_at IS NULL`).get(keyHash) as
        ApiKeyRow | undefined;
      return row ? toApiKey(row) : null;
    },
    async getApiKey(id) {
      const row = db.prepare(`SELECT * FROM api_keys WHERE id = ?`).get(id) as ApiKeyRow | undefined;
      return row ? toApiKey(row) : null;
    },
    async listApiKeys(organizationId) {
      const rows = db
        .prepare(`SELECT * FROM api_keys WHERE organization_id = ? AND revoked_at IS NULL ORDER BY created_at, id`)
        .all(organizationId) as ApiKeyRow[];
      return rows.map(toApiKey);
    },
    async revokeApiKey(id, at) {
      return (
        db.prepare(`UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL`).run(at, id).changes > 0
      );
    },
  };
}

function settings(
  db: Db,
): Pick<AccountStore, 'getSetting' | 'setSettingIfAbsent' | 'setSetting' | 'takeSetting' | 'deleteSetting'> {
  return {
    async getSetting(key) {
      return (db.prepare(`SELECT value FROM settings WHERE key = ?`).pluck().get(key) as string | undefined) ?? null;
    },
    async setSettingIfAbsent(key, value) {
      db.prepare(`INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO NOTHING`).run(key, value);
      return db.prepare(`SELECT value FROM settings WHERE key = ?`).pluck().get(key) as string;
    },
    async setSetting(key, value) {
      db.prepare(
        `INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
      ).run(key, value);
    },
    async takeSetting(key, value) {
      return db.prepare(`DELETE FROM settings WHERE key = ? AND value = ?`).run(key, value).changes > 0;
    },
    async deleteSetting(key) {
      db.prepare(`DELETE FROM settings WHERE key = ?`).run(key);
    },
  };
}
