/**
 * XMP sidecars by name, shared by the importer (src/cli/import) and the watched folders (features/watch):
 * `IMG_1.JPG.xmp` (darktable, digiKam) or `IMG_1.xmp` (Lightroom, Capture One) beside `IMG_1.JPG`, compared
 * case-insensitively. A stem-only sidecar belongs to every file of that stem (a RAW + JPEG pair shares it);
 * a full-name one belongs to its file alone and wins over the stem's.
 */
import path from 'node:path';

/** Whether a file name is an XMP sidecar (never imported as an item itself). */
export function isSidecarName(name: string): boolean {
  return path.extname(name).toLowerCase() === '.xmp';
}

/** Whether the sidecar `xmpName` belongs to the media file `mediaName` (both plain names, no folders). */
export function sidecarBelongsTo(xmpName: string, mediaName: string): boolean {
  const x = xmpName.toLowerCase();
  const m = mediaName.toLowerCase();
  const stem = m.slice(0, m.length - path.extname(m).length);
  return x === `${m}.xmp` || (stem !== '' && x === `${stem}.xmp`);
}

/** The sidecar of `mediaName` among the names of its folder: the full-name one first, else the stem's; or null. */
export function pickSidecar(mediaName: string, siblings: Iterable<string>): string | null {
  let stemOnly: string | null = null;
  const full = `${mediaName.toLowerCase()}.xmp`;
  for (const name of siblings) {
    if (!isSidecarName(name) || !sidecarBelongsTo(name, mediaName)) continue;
    if (name.toLowerCase() === full) return name;
    stemOnly ??= name;
  }
  return stemOnly;
}
