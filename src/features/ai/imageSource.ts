import type { LocalBlobFile } from '../../files/blobStore.js';
import type { Services } from '../kernel/services.js';
import { invalid } from '../../platform/errors.js';
import { loadImageInput, type ImageFormat, type LoadedImage } from './imageInput.js';

/** Formats per the spec: JPEG, PNG, WebP everywhere; GIF also for describe, tag and embeddings. */
/** What loading a request's image reads: limits and the public URL, the file store, signed URLs, temporary outputs. */
export type ImageSourceDeps = Pick<Services, 'config' | 'blobs' | 'urls' | 'outputs'>;
/** What an AI request handler uses: the image source and the models. */
export type AiRequestDeps = ImageSourceDeps & Pick<Services, 'models'>;

export const ANALYSIS_FORMATS: ImageFormat[] = ['jpeg', 'png', 'webp', 'gif'];
export const EDIT_FORMATS: ImageFormat[] = ['jpeg', 'png', 'webp'];

/**
 * Loads the `image` of an AI request: a data URI, one of this server's own
 * file URLs (read from the store, never over HTTP), or a public http(s) URL
 * fetched with the SSRF guard.
 */
export async function loadAiImage(
  deps: ImageSourceDeps,
  input: string,
  formats: ImageFormat[] = ANALYSIS_FORMATS,
): Promise<LoadedImage> {
  const resolveOwnFile = (url: URL) => ownFilePath(deps, url);
  if (deps.config.offline && /^https?:/i.test(input.trim())) {
    // OFFLINE=1: nothing may touch the network, so only this server's own files are read.
    let own: string | LocalBlobFile | null = null;
    try {
      own = await resolveOwnFile(new URL(input.trim()));
    } catch {
      own = null;
    }
    if (!own)
      throw invalid(
        "this server runs offline (OFFLINE=1): send the image as a data URI or as one of this server's file URLs",
      );
    if (typeof own !== 'string') await own.release(); // only checked here: loadImageInput reads it again
  }
  return loadImageInput(input, {
    allowPrivate: deps.config.allowPrivateImageUrls,
    allowedFormats: formats,
    maxPixels: deps.config.maxImagePixels,
    resolveOwnFile,
  });
}

/**
 * The stored file behind one of this server's signed file URLs, or null for any other URL. A library blob
 * comes as a LocalBlobFile (a temporary copy with S3), released by the reader.
 */
async function ownFilePath(deps: ImageSourceDeps, url: URL): Promise<string | LocalBlobFile | null> {
  if (url.origin !== new URL(deps.urls.origin()).origin) return null;
  const out = /^\/files\/out\/([A-Za-z0-9_-]+)\/([0-9a-f]{64}\.[a-z0-9]{2,5})(?:\/[^/]*)?$/.exec(url.pathname);
  if (out) return deps.outputs.verify(out[1], out[2]) ? deps.outputs.pathOf(out[2]) : null; // an earlier edit or generation
  const m = /^\/files\/([A-Za-z0-9_-]+)\/([0-9a-f]{64}\.[a-z0-9]{2,5})(?:\/[^/]*)?$/.exec(url.pathname);
  if (!m || !deps.urls.verify(m[1], m[2])) return null;
  return (await deps.blobs.exists(m[2])) ? deps.blobs.materialize(m[2]) : null;
}
