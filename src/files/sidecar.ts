/**
 * XMP sidecars (`IMG_1.JPG.xmp`, `IMG_1.xmp`): what Lightroom, darktable, digiKam and Capture One write beside
 * a photo instead of into it. Read with ExifTool like the file itself; what the sidecar says wins over what the
 * file says (it is the newer edit: the file is the camera's, the sidecar the photographer's), field by field:
 * title, description, keywords (the whole list), rating, GPS position and capture time. Everything else
 * (camera, exposure, orientation, dimensions) comes from the file alone. The facts a sidecar gave are kept
 * with the item (`exif.sidecar`), so reading the file's own metadata again later keeps them on top.
 */
import { copyFile, readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { pickSidecar } from '../platform/sidecarNames.js';
import { captureFacts, type CaptureFacts } from './captureFacts.js';
import { readTags } from './exifTool.js';

/** The fields a sidecar can set; a key is present only when the sidecar says it. */
export type SidecarFacts = Partial<
  Pick<
    CaptureFacts,
    'takenAt' | 'takenAtZone' | 'timeZone' | 'title' | 'description' | 'keywords' | 'rating' | 'location'
  >
>;

/** The largest sidecar read (a real one is a few kilobytes; Lightroom's with a long history, a few hundred). */
export const MAX_SIDECAR_BYTES = 4 * 1024 * 1024;

/** What the sidecar at `file` says, or null when ExifTool cannot read it. ExifTool goes by the `.xmp` name. */
export async function readSidecar(file: string): Promise<SidecarFacts | null> {
  const named = file.toLowerCase().endsWith('.xmp') ? file : `${file}.xmp`;
  if (named !== file) await copyFile(file, named);
  try {
    const tags = await readTags(named);
    return tags ? sidecarFacts(captureFacts(tags, 'image')) : null;
  } finally {
    if (named !== file) await rm(named, { force: true });
  }
}

/** The fields of `f` that a sidecar may set, where it set them. */
export function sidecarFacts(f: CaptureFacts): SidecarFacts {
  const out: SidecarFacts = {};
  if (f.takenAt) Object.assign(out, { takenAt: f.takenAt, takenAtZone: f.takenAtZone, timeZone: f.timeZone });
  if (f.title) out.title = f.title;
  if (f.description) out.description = f.description;
  if (f.keywords.length) out.keywords = f.keywords;
  if (f.rating !== null) out.rating = f.rating;
  if (f.location) out.location = f.location;
  return out;
}

/** The file's facts with the sidecar's on top (the sidecar wins wherever it says something). */
export function withSidecar(file: CaptureFacts, side: SidecarFacts | null | undefined): CaptureFacts {
  return side ? { ...file, ...side } : file;
}

/** The sidecar beside a media file on disk (see platform/sidecarNames.ts), or null. */
export async function findSidecar(absPath: string): Promise<string | null> {
  const dir = path.dirname(absPath);
  const names = await readdir(dir).catch(() => [] as string[]);
  const name = pickSidecar(path.basename(absPath), names);
  return name ? path.join(dir, name) : null;
}

/**
 * The exif document with what the facts say: `capture` (withCaptureFacts) and the position clients read
 * at the top (latitude, longitude, altitude) taken from a sidecar when it gave one, and `sidecar` kept.
 */
export function exifWithSidecar(exif: Record<string, unknown>, side: SidecarFacts | null | undefined) {
  if (!side || Object.keys(side).length === 0) return exif;
  const out: Record<string, unknown> = { ...exif, sidecar: side };
  if (side.location) {
    out.latitude = side.location.latitude;
    out.longitude = side.location.longitude;
    if (side.location.altitude !== null) out.altitude = side.location.altitude;
  }
  return out;
}
