import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { DomainError, forbidden, invalid, notFound } from '../../platform/errors.js';
import { newUuid, nowIso, parseUuid } from '../../platform/ids.js';
import { roleAtLeast, type ApiKeyRecord, type Role } from '../../storage/types.js';
import { requireInOrganization, requireRole } from '../kernel/access.js';
import type { Principal, Services } from '../kernel/services.js';

/** The exact 401 message the spec prescribes. */
export const UNAUTHORIZED_MESSAGE = 'Invalid or missing API key';
/** A key's last use is written at most this often: a read request should not cost a write. */
const KEY_TOUCH_EVERY_MS = 60_000;
const unauthenticated = () => new DomainError('unauthenticated', UNAUTHORIZED_MESSAGE);

export const hashKey = (secret: string): string => createHash('sha256').update(secret).digest('hex');
/** A new API key secret: a recognisable prefix and 192 random bits. */
export const newKeySecret = (): string => `mlk_${randomBytes(24).toString('base64url')}`;

const b64 = (v: object) => Buffer.from(JSON.stringify(v)).toString('base64url');

/** Resolves an API key secret to the caller, or throws the spec's 401. */
export async function authenticateKey(deps: Pick<Services, 'storage'>, secret: string): Promise<Principal> {
  const key = await deps.storage.accounts.findApiKeyByHash(hashKey(secret));
  if (!key) throw unauthenticated();
  return principalOf(deps, key);
}

/** The effective role is the key's role capped by the user's current membership. */
async function principalOf(deps: Pick<Services, 'storage'>, key: ApiKeyRecord): Promise<Principal> {
  const membership = await deps.storage.accounts.getMembershipRole(key.organizationId, key.userId);
  if (!membership) throw unauthenticated();
  const role = roleAtLeast(membership, key.role) ? key.role : membership;
  const at = Date.now();
  if (!key.lastUsedAt || at - Date.parse(key.lastUsedAt) >= KEY_TOUCH_EVERY_MS)
    await deps.storage.accounts.touchApiKey(key.id, new Date(at).toISOString());
  return { userId: key.userId, organizationId: key.organizationId, role, keyId: key.id, sessionId: null };
}

/**
 * Bearer tokens are HS256 JWTs naming the key they were issued from. The key is
 * looked up on every request, so revoking it ends its tokens at once too. A
 * signed-in session has no key to name: it creates an API key instead.
 */
export function issueToken(
  deps: Pick<Services, 'config' | 'tokenKey'>,
  principal: Principal,
): { token: string; expiresAt: string } {
  if (principal.keyId === null)
    throw forbidden('Bearer tokens are issued for API keys; a signed-in session creates a key (POST /api/keys)');
  const iat = Math.floor(Date.now() / 1000);
  const exp = iat + deps.config.tokenTtlSeconds;
  const header = b64({ alg: 'HS256', typ: 'JWT' });
  const claims = b64({
    sub: principal.userId,
    org: principal.organizationId,
    role: principal.role,
    kid: principal.keyId,
    iat,
    exp,
  });
  const body = `${header}.${claims}`;
  const sig = createHmac('sha256', deps.tokenKey).update(body).digest('base64url');
  return { token: `${body}.${sig}`, expiresAt: new Date(exp * 1000).toISOString() };
}

export async function authenticateToken(
  deps: Pick<Services, 'storage' | 'tokenKey'>,
  token: string,
): Promise<Principal> {
  const parts = token.split('.');
  if (parts.length !== 3) throw unauthenticated();
  const expected = createHmac('sha256', deps.tokenKey).update(`${parts[0]}.${parts[1]}`).digest();
  const given = Buffer.from(parts[2], 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw unauthenticated();
  let claims: { kid?: string; exp?: number; role?: Role };
  try {
    claims = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8'));
  } catch {
    throw unauthenticated();
  }
  if (!claims.kid || !claims.exp || claims.exp * 1000 < Date.now()) throw unauthenticated();
  const key = await deps.storage.accounts.getApiKey(claims.kid);
  if (!key || key.revokedAt) throw unauthenticated();
  const p = await principalOf(deps, key);
  // A token never grants more than it was issued with.
  if (claims.role && !roleAtLeast(claims.role, p.role)) p.role = claims.role;
  return p;
}

/** Reads `x-api-key` or `Authorization: Bearer …` (a key secret or a token). */
export async function authenticate(
  deps: Pick<Services, 'storage' | 'tokenKey'>,
  apiKey: string | undefined,
  authorization: string | undefined,
): Promise<Principal> {
  if (apiKey) return authenticateKey(deps, apiKey.trim());
  const m = /^Bearer\s+(\S+)$/i.exec(authorization ?? '');
  if (!m) throw unauthenticated();
  const credential = m[1];
  return credential.split('.').length === 3 ? authenticateToken(deps, credential) : authenticateKey(deps, credential);
}

export interface CreatedKey {
  id: string;
  key: string;
  name: string;
  organizationId: string;
  role: Role;
  createdAt: string;
}

/**
 * Creates a key for the caller's user. A key is a least-privilege credential: it mints keys in its own
 * organization only (403 for another one, even one its user belongs to), except in an organization
 * this very key created, the only way into a new one. The role is capped at the key's and the user's.
 * A signed-in person (a session) speaks for the user, not for a key: they create keys in any organization
 * where they are admin or owner, up to their role there.
 */
export async function createKey(
  deps: Pick<Services, 'storage'>,
  principal: Principal,
  input: { name?: string; organizationId?: string; role?: Role },
): Promise<CreatedKey> {
  const organizationId = input.organizationId ? parseUuid(input.organizationId) : principal.organizationId;
  const organization = organizationId ? await deps.storage.accounts.getOrganization(organizationId) : null;
  if (!organizationId || !organization) throw notFound('organization not found');
  const byKey = principal.keyId !== null;
  if (byKey && organizationId !== principal.organizationId && organization.createdByKeyId !== principal.keyId)
    throw forbidden('a key creates keys only in its own organization');
  const memberRole = await deps.storage.accounts.getMembershipRole(organizationId, principal.userId);
  if (!memberRole) throw forbidden('no access to this organization');
  // The calling key must itself be allowed to manage keys, and a new key never
  // exceeds either the calling key's role or the user's role where it will live.
  if (byKey) requireRole(principal, 'admin');
  const ceiling = byKey && roleAtLeast(memberRole, principal.role) ? principal.role : memberRole;
  if (!roleAtLeast(ceiling, 'admin'))
    throw forbidden(`managing keys requires the admin role in that organization (you have ${memberRole})`);
  const role = input.role ?? ceiling;
  if (!roleAtLeast(ceiling, role)) throw forbidden(`a key cannot have more than your role (${ceiling})`);
  const secret = newKeySecret();
  const record: ApiKeyRecord = {
    id: newUuid(),
    organizationId,
    userId: principal.userId,
    name: input.name?.trim() || 'API key',
    role,
    keyHash: hashKey(secret),
    prefix: secret.slice(0, 8),
    createdAt: nowIso(),
    revokedAt: null,
  };
  await deps.storage.accounts.createApiKey(record);
  return { id: record.id, key: secret, name: record.name, organizationId, role, createdAt: record.createdAt };
}

export async function listKeys(deps: Pick<Services, 'storage'>, principal: Principal) {
  requireRole(principal, 'admin');
  const keys = await deps.storage.accounts.listApiKeys(principal.organizationId);
  return keys.map((k) => ({
    id: k.id,
    name: k.name,
    organizationId: k.organizationId,
    role: k.role,
    prefix: k.prefix,
    createdAt: k.createdAt,
    lastUsedAt: k.lastUsedAt ?? null,
    userId: k.userId,
  }));
}

/** PATCH /api/keys/:keyId: renames a key of the caller's organization (admin). */
export async function renameKey(deps: Pick<Services, 'storage'>, principal: Principal, id: string, name: string) {
  requireRole(principal, 'admin');
  const key = await deps.storage.accounts.getApiKey(id);
  requireInOrganization(principal, key?.revokedAt ? null : key, 'API key not found');
  const trimmed = name.trim();
  if (!trimmed) throw invalid('name must not be empty');
  await deps.storage.accounts.renameApiKey(id, trimmed);
  return { id, name: trimmed };
}

export async function revokeKey(deps: Pick<Services, 'storage'>, principal: Principal, id: string): Promise<void> {
  requireRole(principal, 'admin');
  const key = await deps.storage.accounts.getApiKey(id);
  requireInOrganization(principal, key?.revokedAt ? null : key, 'API key not found');
  await deps.storage.accounts.revokeApiKey(id, nowIso());
}
