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
import { requestOrigin } from '../platform/requestOrigin.js';

/** Signature length in base64url characters: 22 chars = 132 bits, at least the 128 bits we want unguessable. */
export const SIG_LENGTH = 22;
const SIG_RE = /^[A-Za-z0-9_-]{22}$/;
/** The first path segment of a share link visitor's file URL (`/files/s/<linkId>/…`). */
export const SHARE_URL_SEGMENT = 's';
const SHARE_LINK_ID_RE = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * Signatures remembered for URLs handed out. A listing or search page signs
 * 40+ blobs (an HMAC each; figures: docs/measurements/files.md) and popular
 * items come back page after page; a hit is a map lookup. Oldest first out
 * past this many (~4 MB).
 */
const REMEMBERED_SIGNATURES = 20_000;

export class FileUrls {
  /** PUBLIC_URL, when set: every URL uses it. */
  private readonly fixed: string | undefined;
  private readonly fallback: string;
  /** key → signature, for keys this server put in URLs (verify never adds: clients choose what it sees). */
  private readonly signed = new Map<string, string>();

  /**
   * @param secret    server secret (keep it stable across restarts, or every issued URL breaks)
   * @param publicUrl the server's externally visible origin, e.g. `https://media.example.org` (PUBLIC_URL);
   *                  undefined: the origin the current request came to (platform/requestOrigin.ts)
   * @param fallback  the origin of URLs made without PUBLIC_URL outside a request (background jobs)
   */
  constructor(
    private readonly secret: string,
    publicUrl: string | undefined,
    fallback = 'http://localhost',
  ) {
    if (!secret) throw new Error('FileUrls needs a non-empty secret');
    this.fixed = publicUrl?.replace(/\/+$/, '');
    this.fallback = fallback.replace(/\/+$/, '');
  }

  /** The origin URLs are made under now: PUBLIC_URL when set, else the current request's, else the fallback. */
  origin(): string {
    return this.fixed ?? requestOrigin() ?? this.fallback;
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
    const url = `${this.origin()}/files/${this.signedOnce(key)}/${key}`;
    return filename ? `${url}/${encodeURIComponent(filename)}` : url;
  }

  /**
   * The URL of a file outside the library store, `/files/<namespace>/<sig>/<key>`,
   * signed over `<namespace>/<key>` so it can never pass for a library URL.
   */
  urlIn(namespace: string, key: string): string {
    return `${this.origin()}/files/${namespace}/${this.signedOnce(`${namespace}/${key}`)}/${key}`;
  }

  /**
   * The URL of a blob as a share link's visitor gets it, `/files/s/<linkId>/<sig>/<key>[/<name>]`, signed over
   * `s/<linkId>/<key>`: the file server serves it only while the link is live, so revoking (or the expiry of) the
   * link stops its visitors' URLs at once, while the owners' own URLs of the same blob keep working.
   */
  urlForShare(linkId: string, key: string, filename?: string): string {
    const url = `${this.origin()}/files/${SHARE_URL_SEGMENT}/${linkId}/${this.sign(`${SHARE_URL_SEGMENT}/${linkId}/${key}`)}/${key}`;
    return filename ? `${url}/${encodeURIComponent(filename)}` : url;
  }

  /** Whether `sig` is the signature of a share link visitor's URL of `key` (urlForShare). */
  verifyShare(linkId: string, sig: string, key: string): boolean {
    return SHARE_LINK_ID_RE.test(linkId) && this.verify(sig, `${SHARE_URL_SEGMENT}/${linkId}/${key}`);
  }

  /** sign(key), remembered (see REMEMBERED_SIGNATURES). */
  private signedOnce(key: string): string {
    let sig = this.signed.get(key);
    if (sig === undefined) {
      sig = this.sign(key);
      if (this.signed.size >= REMEMBERED_SIGNATURES) this.signed.delete(this.signed.keys().next().value!);
      this.signed.set(key, sig);
    }
    return sig;
  }

  /** Whether `sig` is the signature of `key`. Constant-time, so timing leaks nothing about the right signature. */
  verify(sig: string, key: string): boolean {
    if (typeof sig !== 'string' || typeof key !== 'string' || !SIG_RE.test(sig)) return false;
    const expected = Buffer.from(this.sign(key), 'latin1');
    const given = Buffer.from(sig, 'latin1');
    return given.length === expected.length && timingSafeEqual(given, expected);
  }
}
