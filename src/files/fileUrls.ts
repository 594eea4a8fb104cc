/**
 * Signed, permanent public URLs for stored blobs.
 *
 * Browsers open these URLs (an <img> tag, a video player) without an API key,
 * so the URL itself is the capability: `/files/<sig>/<key>` where sig is an
 * HMAC of the key under a server secret. Without the secret nobody can forge a
 * URL for a key they merely guessed. The URLs never expire on purpose: clients
 * cache listings, and blobs are immutable (content-addressed). Rotating the
 * secret revokes every URL at once.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

/** Signature length in base64url characters: 22 chars = 132 bits, at least the 128 bits we want unguessable. */
export const SIG_LENGTH = 22;
const SIG_RE = /^[A-Za-z0-9_-]{22}$/;

export class FileUrls {
  private readonly base: string;

  /**
   * @param secret    server secret (keep it stable across restarts, or every issued URL breaks)
   * @param publicUrl the server's externally visible origin, e.g. `https://media.example.org`
   */
  constructor(
    private readonly secret: string,
    publicUrl: string,
  ) {
    if (!secret) throw new Error('FileUrls needs a non-empty secret');
    this.base = publicUrl.replace(/\/+$/, '');
  }

  /** The signature for a key: base64url HMAC-SHA256(secret, key), first 22 characters. */
  sign(key: string): string {
    return createHmac('sha256', this.secret).update(key).digest('base64url').slice(0, SIG_LENGTH);
  }

  /**
   * The public URL of a blob. `filename`, when given, is appended as a last
   * path segment: it only names the download (Content-Disposition), it is not
   * covered by the signature and does not select the file.
   */
  urlFor(key: string, filename?: string): string {
    const url = `${this.base}/files/${this.sign(key)}/${key}`;
    return filename ? `${url}/${encodeURIComponent(filename)}` : url;
  }

  /**
   * The URL of a file outside the library store, `/files/<namespace>/<sig>/<key>`,
   * signed over `<namespace>/<key>` so it can never pass for a library URL.
   */
  urlIn(namespace: string, key: string): string {
    return `${this.base}/files/${namespace}/${this.sign(`${namespace}/${key}`)}/${key}`;
  }

  /** Whether `sig` is the signature of `key`. Constant-time, so timing leaks nothing about the right signature. */
  verify(sig: string, key: string): boolean {
    if (typeof sig !== 'string' || typeof key !== 'string' || !SIG_RE.test(sig)) return false;
    const expected = Buffer.from(this.sign(key), 'latin1');
    const given = Buffer.from(sig, 'latin1');
    return given.length === expected.length && timingSafeEqual(given, expected);
  }
}
