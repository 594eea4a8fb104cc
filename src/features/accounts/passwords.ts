import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { invalid } from '../../platform/errors.js';

/**
 * Password hashing: scrypt from node:crypto with a per-user random salt, stored as a PHC-style string
 * `$scrypt$ln=15,r=8,p=3$<salt>$<hash>` so the parameters can change later: a hash made with other
 * parameters still verifies, and is replaced at the next sign-in (needsRehash).
 *
 * The cost is OWASP's scrypt setting N=2^15, r=8, p=3: 32 MiB and about 0.3 s of one core per hash, run
 * on libuv's thread pool so the event loop keeps serving.
 */
const CURRENT = { ln: 15, r: 8, p: 3 };
const SALT_BYTES = 16;
const HASH_BYTES = 32;

/** The same rule for every new password (setup, invite, change); sign-in takes any length up to the maximum. */
export const PASSWORD_MIN_LENGTH = 8;
export const PASSWORD_MAX_LENGTH = 1024;

interface Parsed {
  ln: number;
  r: number;
  p: number;
  salt: Buffer;
  hash: Buffer;
}

const b64 = (b: Buffer) => b.toString('base64').replace(/=+$/, '');

function derive(password: string, salt: Buffer, ln: number, r: number, p: number, length: number): Promise<Buffer> {
  const N = 2 ** ln;
  const options: ScryptOptions = { N, r, p, maxmem: 256 * N * r };
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFC'), salt, length, options, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

function parse(stored: string): Parsed | null {
  const m = /^\$scrypt\$ln=(\d{1,2}),r=(\d{1,2}),p=(\d{1,2})\$([A-Za-z0-9+/]+)\$([A-Za-z0-9+/]+)$/.exec(stored);
  if (!m) return null;
  const [ln, r, p] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const salt = Buffer.from(m[4], 'base64');
  const hash = Buffer.from(m[5], 'base64');
  // Bounds keep a damaged row from asking for gigabytes; real hashes are far inside them.
  if (ln < 10 || ln > 20 || r < 1 || r > 32 || p < 1 || p > 16 || salt.length < 8 || hash.length < 16) return null;
  return { ln, r, p, salt, hash };
}

/** Hashes a new password with the current parameters and a fresh salt. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const hash = await derive(password, salt, CURRENT.ln, CURRENT.r, CURRENT.p, HASH_BYTES);
  return `$scrypt$ln=${CURRENT.ln},r=${CURRENT.r},p=${CURRENT.p}$${b64(salt)}$${b64(hash)}`;
}

/** Stands in for a missing or unreadable hash: verifying against it costs the same as a real one and never matches. */
const DUMMY: Parsed = { ...CURRENT, salt: Buffer.alloc(SALT_BYTES), hash: Buffer.alloc(HASH_BYTES) };

/**
 * True when `password` matches `stored`. Without a stored hash (unknown email, no password set) it still
 * runs scrypt with the current parameters, so the answer takes as long either way and timing tells no one
 * whether an email has an account. The comparison is constant-time.
 */
export async function verifyPassword(password: string, stored: string | null): Promise<boolean> {
  const parsed = stored === null ? null : parse(stored);
  const target = parsed ?? DUMMY;
  const derived = await derive(password, target.salt, target.ln, target.r, target.p, target.hash.length);
  return timingSafeEqual(derived, target.hash) && parsed !== null;
}

/** True when a (verified) hash was made with other parameters than today's: hash the password again. */
export function needsRehash(stored: string): boolean {
  const parsed = parse(stored);
  return !parsed || parsed.ln !== CURRENT.ln || parsed.r !== CURRENT.r || parsed.p !== CURRENT.p;
}

/** Refuses a new password outside the length rule (the routes' schemas say the same; this holds for every caller). */
export function requireNewPassword(password: string): void {
  if (password.length < PASSWORD_MIN_LENGTH || password.length > PASSWORD_MAX_LENGTH)
    throw invalid(`password must be ${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_LENGTH} characters long`);
}

/** An email as stored and compared: trimmed, lowercase, something@something (owner@localhost is one). */
export function normalizeEmail(raw: string): string {
  const email = raw.trim().toLowerCase();
  if (email.length > 320 || !/^[^\s@]+@[^\s@]+$/.test(email)) throw invalid('email is not an email address');
  return email;
}
