import { DomainError, forbidden } from '../../platform/errors.js';
import { nowIso } from '../../platform/ids.js';
import { firstOrganizationId } from './memberships.js';
import { hashPassword, needsRehash, normalizeEmail, requireNewPassword, verifyPassword } from './passwords.js';
import { requireSession, startSession, type ClientInfo, type SignedIn } from './sessions.js';
import type { Principal, Services } from '../kernel/services.js';

/** Failed sign-ins allowed per email within the window; the next attempt waits until the oldest leaves it. */
export const LOCKOUT_FAILURES = 5;
export const LOCKOUT_WINDOW_MS = 15 * 60_000;

/** The one answer for an unknown email and a wrong password alike. */
export const WRONG_CREDENTIALS = 'wrong email or password';
const wrongCredentials = () => new DomainError('unauthenticated', WRONG_CREDENTIALS);

/**
 * Refuses with rate_limited while the email has LOCKOUT_FAILURES failures inside the window, whether or not
 * the email has an account (so the lockout tells nothing either). Failures live in the database: a restart,
 * or another process on the same file, does not reset them.
 */
export async function requireNotLockedOut(deps: Pick<Services, 'storage'>, email: string): Promise<void> {
  const now = Date.now();
  const failures = await deps.storage.sessions.failuresSince(email, new Date(now - LOCKOUT_WINDOW_MS).toISOString());
  if (failures.length < LOCKOUT_FAILURES) return;
  const freedAt = Date.parse(failures[failures.length - LOCKOUT_FAILURES]) + LOCKOUT_WINDOW_MS;
  const retryAfterSeconds = Math.max(1, Math.ceil((freedAt - now) / 1000));
  throw new DomainError(
    'rate_limited',
    `too many failed sign-ins for this email; try again in ${retryAfterSeconds} s`,
    { retryAfterSeconds },
  );
}

/** Records a failed attempt for the email (pruning failures that left the window). */
export async function recordFailure(deps: Pick<Services, 'storage'>, email: string): Promise<void> {
  const now = Date.now();
  await deps.storage.sessions.recordFailure(
    email,
    new Date(now).toISOString(),
    new Date(now - LOCKOUT_WINDOW_MS).toISOString(),
  );
}

/**
 * Checks an email's password under the lockout. Always runs scrypt (against a stand-in hash when the email
 * is unknown or has no password), so the answer takes as long whether or not the email exists. Returns the
 * user id; a hash made with older parameters is replaced.
 */
export async function checkPassword(deps: Pick<Services, 'storage'>, email: string, password: string): Promise<string> {
  await requireNotLockedOut(deps, email);
  const found = await deps.storage.accounts.findCredentials(email);
  const stored = found?.passwordHash ?? null;
  const ok = await verifyPassword(password, stored);
  if (!ok || !found || stored === null) {
    await recordFailure(deps, email);
    throw wrongCredentials();
  }
  await deps.storage.sessions.clearFailures(email);
  if (needsRehash(stored))
    await deps.storage.accounts.updateUser(found.user.id, { passwordHash: await hashPassword(password) });
  return found.user.id;
}

/** POST /api/auth/login: a new session in the user's first organization. */
export async function signIn(
  deps: Pick<Services, 'storage'>,
  input: { email: string; password: string },
  client: ClientInfo,
): Promise<SignedIn> {
  let email: string;
  try {
    email = normalizeEmail(input.email);
  } catch {
    // Not an address at all: no account can have it; answered as any unknown email is (and just as slowly).
    await verifyPassword(input.password, null);
    throw wrongCredentials();
  }
  const userId = await checkPassword(deps, email, input.password);
  return startSession(deps, userId, await firstOrganizationId(deps, userId), client);
}

/**
 * POST /api/auth/password: needs the current password (wrong: 403, counted toward the lockout); ends every
 * other session of the user, so a stolen cookie stops working with the old password.
 */
export async function changePassword(
  deps: Pick<Services, 'storage'>,
  principal: Principal,
  input: { currentPassword: string; newPassword: string },
): Promise<void> {
  const session = await requireSession(deps, principal);
  requireNewPassword(input.newPassword);
  const user = await deps.storage.accounts.getUser(principal.userId);
  if (!user) throw forbidden('account not found');
  try {
    await checkPassword(deps, user.email.toLowerCase(), input.currentPassword);
  } catch (err) {
    if (err instanceof DomainError && err.code === 'unauthenticated') throw forbidden('current password is wrong');
    throw err;
  }
  await deps.storage.accounts.updateUser(user.id, { passwordHash: await hashPassword(input.newPassword) });
  await deps.storage.sessions.revokeAllForUser(user.id, nowIso(), session.id);
}
