/**
 * Which file names an import looks at, shared by the importer (src/cli/import) and the watched folders
 * (features/watch). Skipped: hidden names (a leading '.': .DS_Store, .thumbnails, .git …) and NAS and OS
 * housekeeping (@eaDir, #recycle, #snapshot, $RECYCLE.BIN, System Volume Information, Thumbs.db,
 * desktop.ini, __MACOSX). Media by extension: the server judges the bytes; this only spares sending what
 * surely is not an image or a video.
 */
import path from 'node:path';

const HOUSEKEEPING = new Set([
  '@eadir',
  '#recycle',
  '#snapshot',
  '$recycle.bin',
  'system volume information',
  'thumbs.db',
  'desktop.ini',
  '__macosx',
]);

/** Whether a file or folder name is skipped without a look inside. */
export function isSkippedName(name: string): boolean {
  return name.startsWith('.') || HOUSEKEEPING.has(name.toLowerCase());
}

const MEDIA_EXTENSIONS = new Set(
  [
    'jpg jpeg jpe png webp gif tif tiff avif heic heif hif jxl',
    // Camera RAW (shown from their embedded previews).
    'dng cr2 cr3 nef nrw arw sr2 srf orf raf rw2 pef srw',
    'mp4 m4v mov qt webm mkv avi 3gp 3g2',
  ]
    .join(' ')
    .split(' '),
);

/** Whether the name looks like an image or video the server may take (by extension; the server decides). */
export function looksLikeMedia(name: string): boolean {
  return MEDIA_EXTENSIONS.has(path.extname(name).slice(1).toLowerCase());
}
