/**
 * Search by example: the image a person dropped, pasted or chose, held in memory only (never uploaded as an
 * item): the search screen sends it with each search (POST /api/dataset/:id/media/search-by-image). A reload
 * forgets it, and the screen asks for the image again.
 */
import { signal } from '@preact/signals';
import { apiUrl } from '../../lib/api';
import { location, navigate } from '../../lib/router';

export interface Example {
  /** A data URI of the image (scaled down to at most MAX_SIDE pixels a side when the browser can decode it). */
  dataUri: string;
  name: string;
}

export const example = signal<Example | null>(null);

/** Longest side sent: the embedder looks at a few hundred pixels; this keeps the request small. */
const MAX_SIDE = 1024;

const readAsDataUri = (blob: Blob): Promise<string> =>
  new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result));
    reader.onerror = () => reject(reader.error ?? new Error('could not read the file'));
    reader.readAsDataURL(blob);
  });

/** The file as a data URI, scaled down in a canvas when it is big (as is when the browser cannot decode it). */
export async function toDataUri(file: Blob): Promise<string> {
  try {
    const bitmap = await createImageBitmap(file);
    const scale = Math.min(1, MAX_SIDE / Math.max(bitmap.width, bitmap.height));
    if (scale === 1 && file.size < 2_000_000) return await readAsDataUri(file);
    const canvas = document.createElement('canvas');
    canvas.width = Math.max(1, Math.round(bitmap.width * scale));
    canvas.height = Math.max(1, Math.round(bitmap.height * scale));
    canvas.getContext('2d')!.drawImage(bitmap, 0, 0, canvas.width, canvas.height);
    return canvas.toDataURL('image/jpeg', 0.92);
  } catch {
    return readAsDataUri(file);
  }
}

/** The first image among dropped or pasted files, or null. */
export function imageOf(files: FileList | null | undefined): File | null {
  for (const f of Array.from(files ?? [])) if (f.type.startsWith('image/')) return f;
  return null;
}

/** Holds the image and opens the collection's search screen on it (in the folder the page shows, if any). */
export async function searchByExample(file: File, datasetId: string): Promise<void> {
  example.value = { dataUri: await toDataUri(file), name: file.name || 'pasted image' };
  const folder = location.value.query.get('path');
  navigate(apiUrl(`/c/${encodeURIComponent(datasetId)}/search`, { by: 'image', path: folder }));
}
