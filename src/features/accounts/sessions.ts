import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { DomainError, forbidden, notFound } from '../../platform/errors.js';
import { newUuid, nowIso } from '../../platform/ids.js';
import type { Role, SessionRecord } from '../../storage/types.js';
import { hashKey } from './auth.js';
import { loadOrganizationIdForUser } from './memberships.js';
import type { Principal, Services } from '../kernel/services.js';

/** A session ends 30 days after sign-in however active it is (absolute expiry)… */
export const SESSION_TTL_MS = 30 * 86_400_000;
/** …and earlier when unused for 14 days (idle expiry). */
export const SESSION_IDLE_MS = 14 * 86_400_000;
/** last_seen_at is written at most this often per session: a read request should not cost a write. */
const TOUCH_EVERY_MS = 60_000;

/** What sign-in, setup, invite acceptance, GET /api/auth/session and switching organization answer. */
export interface SessionBody {
  user: { id: string; email: string; name: string };
  /** The organization the session acts in now, and the user's role there. */
  organizationId: string;
  role: Role;
  organizations: Array<{ id: string; name: string; slug: string; role: Role }>;
  /** To send in `x-csrf-token` on every write made with the session cookie. */
  csrfToken: string;
}

/** A new session: the route sets the cookie from `secret` and `expiresAt` and answers `body`. */
export interface SignedIn {
  body: SessionBody;
  secret: string;
  expiresAt: string;
}

/** Who is signing in from where, and the session cookie the browser already had (ended by the new sign-in). */
export interface ClientInfo {
  ip: string | null;
  userAgent: string | null;
  previousSecret: string | undefined;
}

const sessionEnded = () => new DomainError('unauthenticated', 'session expired or ended; sign in again');
const idleSince = (now: number) => new Date(now - SESSION_IDLE_MS).toISOString();

/**
 * Starts a session for the user in the organization (a new secret every sign-in: the session is rotated),
 * after ending the session the browser presented, if any.
 */
export async function startSession(
  deps: Pick<Services, 'storage'>,
  userId: string,
  organizationId: string,
  client: ClientInfo,
): Promise<SignedIn> {
  const sessions = deps.storage.sessions;
  const at = nowIso();
  if (client.previousSecret) {
    const old = await sessions.findLive(hashKey(client.previousSecret), at, idleSince(Date.now()));
    if (old) await sessions.revoke(old.id, old.userId, at);
  }
  const secret = randomBytes(32).toString('base64url');
  const session: SessionRecord = {
    id: newUuid(),
    userId,
    organizationId,
    secretHash: hashKey(secret),
    csrfToken: randomBytes(32).toString('base64url'),
    createdAt: at,
    lastSeenAt: at,
    expiresAt: new Date(Date.parse(at) + SESSION_TTL_MS).toISOString(),
    revokedAt: null,
    userAgent: client.userAgent?.slice(0, 512) ?? null,
    ip: client.ip?.slice(0, 64) ?? null,
  };
  await sessions.create(session);
  return { body: await sessionBody(deps, session), secret, expiresAt: session.expiresAt };
}

/** The session's user, organization, memberships and CSRF token. */
export async function sessionBody(deps: Pick<Services, 'storage'>, session: SessionRecord): Promise<SessionBody> {
  const accounts = deps.storage.accounts;
  const [user, orgs] = await Promise.all([
    accounts.getUser(session.userId),
    accounts.listOrganizationsForUser(session.userId),
  ]);
  const current = orgs.find((o) => o.id === session.organizationId);
  if (!user || !current) throw sessionEnded();
  return {
    user: { id: user.id, email: user.email, name: user.name },
    organizationId: current.id,
    role: current.role,
    organizations: orgs.map((o) => ({ id: o.id, name: o.name, slug: o.slug, role: o.role })),
    csrfToken: session.csrfToken,
  };
}

/**
 * The caller behind a session cookie's secret: a live session, acting with the user's role in the session's
 * organization. Records activity at most once a minute.
 */
export async function authenticateSession(
  deps: Pick<Services, 'storage'>,
  secret: string,
): Promise<{ principal: Principal; session: SessionRecord }> {
  const now = Date.now();
  const session = await deps.storage.sessions.findLive(hashKey(secret), new Date(now).toISOString(), idleSince(now));
  if (!session) throw sessionEnded();
  const role = await deps.storage.accounts.getMembershipRole(session.organizationId, session.userId);
  if (!role) throw sessionEnded();
  if (now - Date.parse(session.lastSeenAt) >= TOUCH_EVERY_MS)
    await deps.storage.sessions.touch(session.id, new Date(now).toISOString());
  const principal = { userId: session.userId, organizationId: session.organizationId, role, keyId: null };
  return { principal: { ...principal, sessionId: session.id }, session };
}

const digest = (s: string) => createHash('sha256').update(s).digest();

/** Refuses a cookie-authenticated write whose `x-csrf-token` is not the session's (compared in constant time). */
export function checkCsrf(session: SessionRecord, header: string | undefined): void {
  if (!header || !timingSafeEqual(digest(header), digest(session.csrfToken)))
    throw forbidden('missing or wrong x-csrf-token header: a write with the session cookie must carry its csrf token');
}

/** The calling session's record; 403 for a caller that came with an API key or a token. */
export async function requireSession(deps: Pick<Services, 'storage'>, principal: Principal): Promise<SessionRecord> {
  if (!principal.sessionId) throw forbidden('only a signed-in session can do this; API keys and tokens have none');
  const session = await deps.storage.sessions.get(principal.sessionId);
  if (!session || session.revokedAt) throw sessionEnded();
  return session;
}

/** GET /api/auth/session: the same body sign-in answered. */
export async function currentSession(deps: Pick<Services, 'storage'>, principal: Principal): Promise<SessionBody> {
  return sessionBody(deps, await requireSession(deps, principal));
}

/** Moves the session to another organization of its user (404 unknown, 403 not a member). */
export async function switchOrganization(
  deps: Pick<Services, 'storage'>,
  principal: Principal,
  rawOrganizationId: string,
): Promise<SessionBody> {
  const session = await requireSession(deps, principal);
  const organizationId = await loadOrganizationIdForUser(deps, principal.userId, rawOrganizationId);
  await deps.storage.sessions.setOrganization(session.id, organizationId);
  return sessionBody(deps, { ...session, organizationId });
}

/** The caller's live sessions, newest first, the calling one marked `current`. */
export async function listSessions(deps: Pick<Services, 'storage'>, principal: Principal) {
  const session = await requireSession(deps, principal);
  const now = Date.now();
  const live = await deps.storage.sessions.listLive(principal.userId, new Date(now).toISOString(), idleSince(now));
  return live.map((s) => ({
    id: s.id,
    createdAt: s.createdAt,
    lastSeenAt: s.lastSeenAt,
    expiresAt: s.expiresAt,
    userAgent: s.userAgent,
    ip: s.ip,
    current: s.id === session.id,
  }));
}

/** Ends one of the caller's own sessions (another user's, or one already ended: 404). */
export async function endSession(deps: Pick<Services, 'storage'>, principal: Principal, id: string): Promise<void> {
  await requireSession(deps, principal);
  if (!(await deps.storage.sessions.revoke(id, principal.userId, nowIso()))) throw notFound('session not found');
}

/**
 * Signs the browser out: ends the session its cookie names, if it is live, after checking the CSRF token
 * (a cross-site page must not sign anyone out). A dead or missing session needs nothing: the route clears
 * the cookie either way.
 */
export async function signOut(
  deps: Pick<Services, 'storage'>,
  secret: string | undefined,
  csrfHeader: string | undefined,
): Promise<void> {
  if (!secret) return;
  const now = Date.now();
  const session = await deps.storage.sessions.findLive(hashKey(secret), new Date(now).toISOString(), idleSince(now));
  if (!session) return;
  checkCsrf(session, csrfHeader);
  await deps.storage.sessions.revoke(session.id, session.userId, new Date(now).toISOString());
}
