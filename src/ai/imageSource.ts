import type { Services } from '../domain/services.js';
import { loadImageInput, type ImageFormat, type LoadedImage } from './imageInput.js';

/** Formats per the spec: JPEG, PNG, WebP everywhere; GIF also for describe, tag and embeddings. */
export const ANALYSIS_FORMATS: ImageFormat[] = ['jpeg', 'png', 'webp', 'gif'];
export const EDIT_FORMATS: ImageFormat[] = ['jpeg', 'png', 'webp'];

/**
 * Loads the `image` of an AI request: a data URI, one of this server's own
 * file URLs (read from the store, never over HTTP), or a public http(s) URL
 * fetched with the SSRF guard.
 */
export function loadAiImage(s: Services, input: string, formats: ImageFormat[] = ANALYSIS_FORMATS): Promise<LoadedImage> {
  const own = new URL(s.config.publicUrl);
  return loadImageInput(input, {
    allowPrivate: s.config.allowPrivateImageUrls,
    allowedFormats: formats,
    maxPixels: s.config.maxImagePixels,
    resolveOwnFile: async (url) => {
      if (url.origin !== own.origin) return null;
      const m = /^\/files\/([A-Za-z0-9_-]+)\/([0-9a-f]{64}\.[a-z0-9]{2,5})(?:\/[^/]*)?$/.exec(url.pathname);
      if (!m || !s.urls.verify(m[1], m[2])) return null;
      return (await s.blobs.exists(m[2])) ? s.blobs.pathFor(m[2]) : null;
    },
  });
}
