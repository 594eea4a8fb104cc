import type { BlobStore } from '../../files/blobStore.js';
import type { Services } from '../kernel/services.js';

/** A blob store that records the keys an upload put into it, so that a failed upload can take them back. */
export function recordingPuts(blobs: BlobStore): { blobs: BlobStore; keys: string[] } {
  const keys: string[] = [];
  const proxy = new Proxy(blobs, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target) as unknown;
      if (typeof value !== 'function') return value;
      if (prop !== 'putFile' && prop !== 'putBuffer') return value.bind(target);
      return async (...args: unknown[]) => {
        const stored = (await value.apply(target, args)) as { key: string };
        keys.push(stored.key);
        return stored;
      };
    },
  });
  return { blobs: proxy, keys };
}

/**
 * After an upload failed for want of space (its rows were never written): the files it stored that no row
 * references go at once, rather than holding the little space left until the start-up sweep. A blob another
 * item shares (the same bytes uploaded before) is referenced, so it stays.
 */
export async function removeUnreferenced(
  deps: Pick<Services, 'storage' | 'blobs'> & Partial<Pick<Services, 'logger'>>,
  keys: string[],
): Promise<void> {
  if (keys.length === 0) return;
  try {
    const referenced = await deps.storage.media.referencedBlobKeys(keys);
    await Promise.all(keys.filter((k) => !referenced.has(k)).map((k) => deps.blobs.remove(k)));
  } catch (err) {
    deps.logger?.warn('could not remove the files of an upload the disk had no room for', { err });
  }
}
