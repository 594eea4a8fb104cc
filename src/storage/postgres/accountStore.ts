import { isUniqueViolation, type PgDb } from '../../platform/pgDb.js';
import { slugTaken } from '../storeErrors.js';
import type { AccountStore } from '../storage.js';
import type { Role } from '../types.js';
import {
  toApiKey,
  toOrganization,
  toUser,
  type ApiKeyRow,
  type OrganizationRow,
  type UserRow,
} from '../sqlite/rows.js';
import { pgMembers } from './memberStore.js';

/** Accounts on PostgreSQL, in parts as on SQLite: organizations, users and memberships, credentials, API keys, settings. */
export function pgAccountStore(db: PgDb): AccountStore {
  return { ...organizations(db), ...users(db), ...credentials(db), ...apiKeys(db), ...settings(db), ...pgMembers(db) };
}

type OrganizationPart = Pick<
  AccountStore,
  | 'countOrganizations'
  | 'createOrganization'
  | 'getOrganization'
  | 'listOrganizations'
  | 'isSlugTaken'
  | 'listOrganizationsForUser'
>;

function organizations(db: PgDb): OrganizationPart {
  const getOrg = async (id: string) => db.one<OrganizationRow>(`SELECT * FROM organizations WHERE id = $1`, [id]);
  return {
    async countOrganizations() {
      return (await db.one<{ n: number }>(`SELECT count(*) AS n FROM organizations`))!.n;
    },
    async createOrganization(org, ownerUserId) {
      const at = new Date().toISOString();
      await db.tx(async (tx) => {
        await tx
          .query(
            `INSERT INTO organizations (id, name, slug, created_at, created_by_key_id) VALUES ($1, $2, $3, $4, $5)`,
            [org.id, org.name, org.slug, at, org.createdByKeyId ?? null],
          )
          .catch((err: unknown) => {
            throw isUniqueViolation(err) ? slugTaken(org.slug) : err;
          });
        await tx.query(
          `INSERT INTO memberships (organization_id, user_id, role, created_at) VALUES ($1, $2, 'owner', $3)`,
          [org.id, ownerUserId, at],
        );
      });
      return toOrganization((await getOrg(org.id))!);
    },
    async getOrganization(id) {
      const row = await getOrg(id);
      return row ? toOrganization(row) : null;
    },
    async listOrganizations() {
      return (await db.many<OrganizationRow>(`SELECT * FROM organizations ORDER BY created_at, id`)).map(
        toOrganization,
      );
    },
    async isSlugTaken(slug) {
      return (await db.one(`SELECT 1 FROM organizations WHERE slug = $1`, [slug])) !== null;
    },
    async listOrganizationsForUser(userId) {
      const rows = await db.many<OrganizationRow & { role: Role }>(
        `SELECT o.*, m.role FROM organizations o JOIN memberships m ON m.organization_id = o.id
         WHERE m.user_id = $1 ORDER BY o.created_at, o.id`,
        [userId],
      );
      return rows.map((row) => ({ ...toOrganization(row), role: row.role }));
    },
  };
}

function users(db: PgDb): Pick<AccountStore, 'createUser' | 'getUser' | 'getMembershipRole'> {
  return {
    async createUser(user) {
      await db.query(`INSERT INTO users (id, email, name, created_at) VALUES ($1, $2, $3, $4)`, [
        user.id,
        user.email,
        user.name,
        user.createdAt,
      ]);
      return user;
    },
    async getUser(id) {
      const row = await db.one<UserRow>(`SELECT * FROM users WHERE id = $1`, [id]);
      return row ? toUser(row) : null;
    },
    async getMembershipRole(organizationId, userId) {
      const row = await db.one<{ role: Role }>(
        `SELECT role FROM memberships WHERE organization_id = $1 AND user_id = $2`,
        [organizationId, userId],
      );
      return row?.role ?? null;
    },
  };
}

function credentials(db: PgDb): Pick<AccountStore, 'findCredentials' | 'getPasswordHash' | 'updateUser'> {
  return {
    async findCredentials(email) {
      const row = await db.one<UserRow & { password_hash: string | null }>(
        `SELECT * FROM users WHERE lower(email) = lower($1) ORDER BY created_at, id LIMIT 1`,
        [email],
      );
      return row ? { user: toUser(row), passwordHash: row.password_hash } : null;
    },
    async getPasswordHash(userId) {
      const row = await db.one<{ password_hash: string | null }>(`SELECT password_hash FROM users WHERE id = $1`, [
        userId,
      ]);
      return row?.password_hash ?? null;
    },
    async updateUser(id, patch) {
      const row = await db.one<UserRow>(
        `UPDATE users SET email = coalesce($1, email), name = coalesce($2, name),
           password_hash = coalesce($3, password_hash)
         WHERE id = $4 RETURNING *`,
        [patch.email ?? null, patch.name ?? null, patch.passwordHash ?? null, id],
      );
      return row ? toUser(row) : null;
    },
  };
}

type ApiKeyPart = Pick<
  AccountStore,
  'createApiKey' | 'findApiKeyByHash' | 'getApiKey' | 'listApiKeys' | 'revokeApiKey'
>;

function apiKeys(db: PgDb): ApiKeyPart {
  return {
    async createApiKey(key) {
      await db.query(
        `INSERT INTO api_keys (id, organization_id, user_id, name, role, key_hash, prefix, created_at, revoked_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
        [
          key.id,
          key.organizationId,
          key.userId,
          key.name,
          key.role,
          key.keyHash,
          key.prefix,
          key.createdAt,
          key.revokedAt,
        ],
      );
    },
    async findApiKeyByHash(keyHash) {
      const row = await db.one<ApiKeyRow>(`SELECT * FROM api_keys WHERE key_hash = $1 AND revoked_at IS NULL`, [
        keyHash,
      ]);
      return row ? toApiKey(row) : null;
    },
    async getApiKey(id) {
      const row = await db.one<ApiKeyRow>(`SELECT * FROM api_keys WHERE id = $1`, [id]);
      return row ? toApiKey(row) : null;
    },
    async listApiKeys(organizationId) {
      const rows = await db.many<ApiKeyRow>(
        `SELECT * FROM api_keys WHERE organization_id = $1 AND revoked_at IS NULL ORDER BY created_at, id`,
        [organizationId],
      );
      return rows.map(toApiKey);
    },
    async revokeApiKey(id, at) {
      const result = await db.query(`UPDATE api_keys SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL`, [
        at,
        id,
      ]);
      return (result.rowCount ?? 0) > 0;
    },
  };
}

type SettingsPart = Pick<
  AccountStore,
  'getSetting' | 'setSettingIfAbsent' | 'setSetting' | 'takeSetting' | 'deleteSetting'
>;

function settings(db: PgDb): SettingsPart {
  const get = async (key: string) =>
    (await db.one<{ value: string }>(`SELECT value FROM settings WHERE key = $1`, [key]))?.value;
  return {
    async getSetting(key) {
      return (await get(key)) ?? null;
    },
    async setSettingIfAbsent(key, value) {
      await db.query(`INSERT INTO settings (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING`, [key, value]);
      return (await get(key))!;
    },
    async setSetting(key, value) {
      await db.query(
        `INSERT INTO settings (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
        [key, value],
      );
    },
    async takeSetting(key, value) {
      const result = await db.query(`DELETE FROM settings WHERE key = $1 AND value = $2`, [key, value]);
      return (result.rowCount ?? 0) > 0;
    },
    async deleteSetting(key) {
      await db.query(`DELETE FROM settings WHERE key = $1`, [key]);
    },
  };
}
