/**
 * ExifTool, through exiftool-vendored: the metadata of every format we take
 * (HEIC, RAW, video containers, XMP …) and the JPEGs that RAW files embed.
 *
 * ExifTool runs as long-lived Perl processes beside Node (batch-cluster), so
 * reading never blocks the event loop; each task has a time limit, after which
 * the process is killed and the read fails. One shared instance is started on
 * first use and ended by endExifTool() (the app's close).
 */
import { ExifTool, type Tags } from 'exiftool-vendored';

export { ExifDateTime, type Tags } from 'exiftool-vendored';

/** A metadata read or preview extraction that takes longer than this fails (a well-formed file takes milliseconds). */
export const EXIFTOOL_TASK_TIMEOUT_MS = 20_000;

/**
 * Tags read as numbers rather than ExifTool's printed forms ("25.0 mm", "1/1000", "Rotate 90 CW"), on top of
 * exiftool-vendored's own list (durations, GPS position, orientation).
 */
const NUMERIC_TAGS = [
  '*Duration*',
  'GPSAltitude',
  'GPSLatitude',
  'GPSLongitude',
  'GPSPosition',
  'GPSImgDirection',
  'Orientation',
  'Rotation',
  'FocalLength',
  'FNumber',
  'ExposureTime',
  'ISO',
  'Rating',
];

let shared: ExifTool | null = null;

function instance(): ExifTool {
  shared ??= new ExifTool({
    maxProcs: 2,
    taskTimeoutMillis: EXIFTOOL_TASK_TIMEOUT_MS,
    // A file that timed out once is not tried again: a retry would only double the wait.
    taskRetries: 0,
    numericTags: NUMERIC_TAGS,
    // A time without an offset is the camera's wall clock; GPS (when present) gives its zone, offline.
    backfillTimezones: true,
  });
  return shared;
}

/**
 * The file's tags, or null when ExifTool cannot read it or is not there (no Perl): metadata is a nicety,
 * never a reason on its own to refuse a file the decoders can read.
 */
export async function readTags(file: string): Promise<Tags | null> {
  try {
    return await instance().read(file);
  } catch {
    return null;
  }
}

/** One embedded binary (PreviewImage, JpgFromRaw, ThumbnailImage) as bytes, or null when absent or unreadable. */
export async function readEmbedded(tag: string, file: string): Promise<Buffer | null> {
  try {
    const buf = await instance().extractBinaryTagToBuffer(tag, file);
    return buf.length > 0 ? buf : null;
  } catch {
    return null;
  }
}

/** Ends the ExifTool processes (the next read starts them again). */
export async function endExifTool(): Promise<void> {
  const et = shared;
  shared = null;
  await et?.end();
}
