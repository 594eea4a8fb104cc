import type { Services } from '../kernel/services.js';
import { invalid } from '../../errors.js';
import { loadImageInput, type ImageFormat, type LoadedImage } from './imageInput.js';

/** Formats per the spec: JPEG, PNG, WebP everywhere; GIF also for describe, tag and embeddings. */
export const ANALYSIS_FORMATS: ImageFormat[] = ['jpeg', 'png', 'webp', 'gif'];
export const EDIT_FORMATS: ImageFormat[] = ['jpeg', 'png', 'webp'];

/**
 * Loads the `image` of an AI request: a data URI, one of this server's own
 * file URLs (read from the store, never over HTTP), or a public http(s) URL
 * fetched with the SSRF guard.
 */
export async function loadAiImage(
  s: Services,
  input: string,
  formats: ImageFormat[] = ANALYSIS_FORMATS,
): Promise<LoadedImage> {
  const resolveOwnFile = (url: URL) => ownFilePath(s, url);
  if (s.config.offline && /^https?:/i.test(input.trim())) {
    // OFFLINE=1: nothing may touch the network, so only this server's own files are read.
    let own: string | null = null;
    try {
      own = await resolveOwnFile(new URL(input.trim()));
    } catch {
      own = null;
    }
    if (!own)
      throw invalid(
        "this server runs offline (OFFLINE=1): send the image as a data URI or as one of this server's file URLs",
      );
  }
  return loadImageInput(input, {
    allowPrivate: s.config.allowPrivateImageUrls,
    allowedFormats: formats,
    maxPixels: s.config.maxImagePixels,
    resolveOwnFile,
  });
}

/** The stored file behind one of this server's signed file URLs, or null for any other URL. */
async function ownFilePath(s: Services, url: URL): Promise<string | null> {
  if (url.origin !== new URL(s.config.publicUrl).origin) return null;
  const out = /^\/files\/out\/([A-Za-z0-9_-]+)\/([0-9a-f]{64}\.[a-z0-9]{2,5})(?:\/[^/]*)?$/.exec(url.pathname);
  if (out) return s.outputs.verify(out[1], out[2]) ? s.outputs.pathOf(out[2]) : null; // an earlier edit or generation
  const m = /^\/files\/([A-Za-z0-9_-]+)\/([0-9a-f]{64}\.[a-z0-9]{2,5})(?:\/[^/]*)?$/.exec(url.pathname);
  if (!m || !s.urls.verify(m[1], m[2])) return null;
  return (await s.blobs.exists(m[2])) ? s.blobs.pathFor(m[2]) : null;
}
