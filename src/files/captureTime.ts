/**
 * When a photo was taken or a video recorded (`takenAt`, issue #18), from what
 * the probes read: the EXIF of an image (as exifToJson gives it) or the tags of
 * a video container (ffprobe). The answer is an ISO 8601 UTC string with
 * milliseconds, like createdAt, so the two sort together; null when the file
 * does not say or says something implausible.
 *
 * Zones: EXIF times carry none. exif-reader reads them as UTC, so a time
 * without an offset tag is kept as the camera's wall clock written as UTC
 * ("2008:10:22 16:28:39" → 2008-10-22T16:28:39.000Z); when OffsetTimeOriginal
 * (or OffsetTime) says the zone, it is applied and the result is the true
 * instant. Migration 019 applies the same rules in SQL to stored EXIF.
 */

/**
 * Earliest plausible capture time. exif-reader turns "0000:00:00 00:00:00" (a
 * camera with no clock set) into 1899-11-30 and year 0000 into 1900: both fall
 * before this.
 */
const EARLIEST = Date.UTC(1900, 0, 2);
/** Earliest plausible recording time of a video: containers write 1904-01-01 (QuickTime) or 1970-01-01 for unset. */
const EARLIEST_VIDEO = Date.UTC(1970, 0, 2);
/** A clock may run a zone ahead of UTC; later than a day from now is a wrong clock. */
const AHEAD_MS = 86_400_000;

const ISO_PREFIX = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?/;
const OFFSET = /^([+-])(\d{2}):?(\d{2})$/;

/** The instant as ISO UTC, or null when it is outside [earliest, now + a day]. */
function plausible(ms: number, earliest: number): string | null {
  if (!Number.isFinite(ms) || ms < earliest || ms > Date.now() + AHEAD_MS) return null;
  return new Date(ms).toISOString();
}

/**
 * An instant (ms) as ISO UTC when it is a plausible capture time: after 1900 for a photo (1970 for a video,
 * whose containers write 1904 or 1970 for unset) and not later than a day from now; else null.
 */
export function plausibleCaptureTime(ms: number, video: boolean): string | null {
  return plausible(ms, video ? EARLIEST_VIDEO : EARLIEST);
}

/** "+02:00" / "-0530" → minutes east of UTC; null when absent or malformed. */
function offsetMinutes(value: unknown): number | null {
  const m = typeof value === 'string' ? OFFSET.exec(value.trim()) : null;
  if (!m || +m[2] > 14 || +m[3] > 59) return null;
  return (m[1] === '-' ? -1 : 1) * (+m[2] * 60 + +m[3]);
}

/** Sub-second digits ("55" → 550 ms), as EXIF's SubSecTime* store them; 0 when absent. */
function subSecondMs(value: unknown): number {
  const digits = typeof value === 'string' || typeof value === 'number' ? /^\d+/.exec(String(value).trim()) : null;
  return digits ? Number((digits[0] + '00').slice(0, 3)) : 0;
}

/** The wall-clock fields of an ISO-like time (its zone, if any, ignored) as a UTC instant. */
function wallClock(value: unknown): number | null {
  const m = typeof value === 'string' ? ISO_PREFIX.exec(value) : null;
  if (!m) return null;
  return Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +m[6]);
}

/** One EXIF time with its sub-seconds and offset tags, or null. */
function exifTime(photo: Record<string, unknown>, time: string, subSec: string, offset: string): string | null {
  const wall = wallClock(photo[time]);
  if (wall === null) return null;
  const minutes = offsetMinutes(photo[offset]) ?? offsetMinutes(photo.OffsetTime) ?? 0;
  return plausible(wall + subSecondMs(photo[subSec]) - minutes * 60_000, EARLIEST);
}

/**
 * The capture time of an image from its EXIF as exifToJson gives it
 * (src/files/imageProbe.ts): DateTimeOriginal, else DateTimeDigitized (what
 * other tools call CreateDate). DateTime is when the file was last changed and
 * is not used.
 */
export function takenAtFromExif(exif: Record<string, unknown>): string | null {
  const photo = exif.Photo;
  if (!photo || typeof photo !== 'object') return null;
  const p = photo as Record<string, unknown>;
  return (
    exifTime(p, 'DateTimeOriginal', 'SubSecTimeOriginal', 'OffsetTimeOriginal') ??
    exifTime(p, 'DateTimeDigitized', 'SubSecTimeDigitized', 'OffsetTimeDigitized')
  );
}

/** An ISO-like time with or without its zone ("…Z", "…+0200", none: UTC) as an instant in ms, or null. */
function containerTime(value: string | undefined): number | null {
  if (!value) return null;
  const text = value.trim();
  const wall = wallClock(text);
  if (wall === null) return null;
  const fraction = /^[^.]*\.(\d+)/.exec(text.slice(0, 30));
  const zone = /(Z|[+-]\d{2}:?\d{2})$/.exec(text)?.[1];
  const minutes = !zone || zone === 'Z' ? 0 : offsetMinutes(zone);
  if (minutes === null) return null;
  return wall + (fraction ? subSecondMs(fraction[1]) : 0) - minutes * 60_000;
}

/**
 * The recording time of a video from its container's tags (ffprobe's format
 * tags, then its streams'): Apple's `com.apple.quicktime.creationdate` (the
 * local time with its offset, kept by edits) first, then `creation_time`
 * (UTC); the sentinel dates of unset fields (1904, 1970) give null.
 */
export function takenAtFromTags(
  formatTags: Record<string, string> | undefined,
  streamTags: Array<Record<string, string> | undefined>,
): string | null {
  const lower = (tags: Record<string, string> | undefined) =>
    Object.fromEntries(Object.entries(tags ?? {}).map(([k, v]) => [k.toLowerCase(), v]));
  const format = lower(formatTags);
  const candidates = [
    format['com.apple.quicktime.creationdate'],
    format.creation_time,
    ...streamTags.map((tags) => lower(tags).creation_time),
  ];
  for (const value of candidates) {
    const ms = containerTime(value);
    const iso = ms === null ? null : plausible(ms, EARLIEST_VIDEO);
    if (iso) return iso;
  }
  return null;
}
