import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { ShareLink } from '../../storage/shareStore.js';

/** A share token: 32 random bytes (256 bits) in base64url, 43 characters. Only its sha256 is stored. */
export const newShareToken = (): string => randomBytes(32).toString('base64url');

/** The sha256 (hex) a token is stored and looked up by; any string hashes, so every lookup costs the same. */
export const hashShareToken = (token: string): string => createHash('sha256').update(token, 'utf8').digest('hex');

/** Constant-time equality of two hex digests of the same length. */
export function sameDigest(a: string, b: string): boolean {
  const x = Buffer.from(a, 'utf8');
  const y = Buffer.from(b, 'utf8');
  return x.length === y.length && timingSafeEqual(x, y);
}

/** The visitor's cookie after the password: `lumen_share`, scoped by its Path to one link's routes. */
export const SHARE_COOKIE = 'lumen_share';
/** How long an unlocked visitor stays unlocked (a new password or a revocation ends it sooner). */
export const SHARE_SESSION_MS = 12 * 3_600_000;

/**
 * The share session's value: `<until>.<mac>`, an HMAC under the server's token key over the link's id, the
 * expiry and the link's password hash. Nothing is stored: a new password changes the MAC's input (every
 * visitor must enter it again), and a revoked or expired link is refused before the cookie is read.
 */
function mac(key: Buffer, link: Pick<ShareLink, 'id' | 'passwordHash'>, until: number): string {
  return createHmac('sha256', key)
    .update(`share-session\n${link.id}\n${until}\n${link.passwordHash ?? ''}`)
    .digest('base64url');
}

export function shareSessionValue(key: Buffer, link: Pick<ShareLink, 'id' | 'passwordHash'>, now: number): string {
  const until = now + SHARE_SESSION_MS;
  return `${until}.${mac(key, link, until)}`;
}

/** Whether a cookie value is a live share session of this link. */
export function checkShareSession(
  key: Buffer,
  link: Pick<ShareLink, 'id' | 'passwordHash'>,
  value: string | undefined,
  now: number,
): boolean {
  const m = value ? /^(\d{13})\.([A-Za-z0-9_-]{43})$/.exec(value) : null;
  if (!m || Number(m[1]) <= now) return false;
  return sameDigest(m[2], mac(key, link, Number(m[1])));
}
