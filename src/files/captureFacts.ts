/**
 * What ExifTool's tags say about a photo or video, checked and normalised:
 * when (with the zone), with what camera, where, and what the author wrote
 * (XMP rating, title, description, keywords). Every field is null or empty
 * when the file does not say or says something implausible: a date in the
 * year 30000, a latitude of 200°, a rating of 9.
 *
 * Time zones: an offset written by the camera (OffsetTimeOriginal, Apple's
 * creation date) is used as it is; without one, exiftool-vendored derives the
 * zone offline from the GPS position (its bundled tz-lookup). Without either
 * the zone is unknown (`takenAtZone: null`) and the time is the camera's wall
 * clock written as UTC, as captureTime.ts does. A video's UTC container time
 * is a true instant, but says nothing of the local zone: null there too.
 */
import { plausibleCaptureTime } from './captureTime.js';
import { ExifDateTime, type Tags } from './exifTool.js';

/** The normalised facts, stored as `exif.capture` and presented as takenAtZone, camera and location. */
export interface CaptureFacts {
  /** ISO UTC (see the file comment); null when unknown or implausible. */
  takenAt: string | null;
  /** The UTC offset where it was taken, "+09:00"; null when unknown. */
  takenAtZone: string | null;
  /** The IANA zone when it came from the position ("Europe/Rome"); null otherwise. */
  timeZone: string | null;
  camera: { make: string | null; model: string | null; lens: string | null } | null;
  exposure: { focalLength: number | null; fNumber: number | null; exposureTime: number | null; iso: number | null };
  location: { latitude: number; longitude: number; altitude: number | null; direction: number | null } | null;
  /** EXIF orientation 1–8 of an image; null when absent. */
  orientation: number | null;
  /** XMP rating 0–5. */
  rating: number | null;
  title: string | null;
  description: string | null;
  keywords: string[];
  /** Apple's content identifier, shared by the two halves of a Live Photo. */
  contentIdentifier: string | null;
  /** ExifTool's FileType: JPEG, HEIC, DNG, MOV … */
  fileType: string | null;
  video: { duration: number | null; rotation: number | null; codec: string | null } | null;
}

const IMAGE_DATES = ['SubSecDateTimeOriginal', 'DateTimeOriginal', 'SubSecCreateDate', 'CreateDate', 'DateTimeCreated'];
/** Apple's CreationDate carries the local offset; CreateDate is the container's UTC time. */
const VIDEO_DATES = ['CreationDate', 'CreateDate', 'MediaCreateDate', 'TrackCreateDate', 'DateTimeOriginal'];
const MAX_KEYWORDS = 50;
const MAX_TEXT = 2000;

/** The facts of a file from its tags (null tags: nothing known). */
export function captureFacts(tags: Tags | null, kind: 'image' | 'video'): CaptureFacts {
  const t = (tags ?? {}) as Record<string, unknown>;
  const when = captureTime(t, kind);
  const make = text(t.Make, 200);
  const model = text(t.Model, 200);
  const lens = text(t.LensModel, 200) ?? text(t.LensID, 200) ?? text(t.Lens, 200);
  return {
    ...when,
    camera: make || model || lens ? { make, model, lens } : null,
    exposure: {
      focalLength: range(t.FocalLength, 0, 100_000, false),
      fNumber: range(t.FNumber, 0, 1000, false),
      exposureTime: range(t.ExposureTime, 0, 100_000, false),
      iso: range(t.ISO, 0, 10_000_000, false),
    },
    location: location(t),
    orientation: kind === 'image' ? integerIn(t.Orientation, 1, 8) : null,
    rating: integerIn(t.Rating, 0, 5),
    title: text(t.Title, MAX_TEXT) ?? text(t.XPTitle, MAX_TEXT) ?? text(t.ObjectName, MAX_TEXT),
    description: authored(text(t.Description, MAX_TEXT) ?? text(t.ImageDescription, MAX_TEXT), make, model),
    keywords: keywords(t.Keywords ?? t.Subject ?? t.XPKeywords),
    contentIdentifier: text(t.ContentIdentifier, 100) ?? text(t.MediaGroupUUID, 100),
    fileType: text(t.FileType, 40),
    video:
      kind === 'video'
        ? {
            duration: range(t.Duration, 0, 1e7, false),
            rotation: integerIn(t.Rotation, 0, 359),
            codec: text(t.CompressorID, 40) ?? text(t.VideoCodec, 40),
          }
        : null,
  };
}

/** The first plausible date of the kind's tags, with its zone when one is known. */
function captureTime(t: Record<string, unknown>, kind: 'image' | 'video') {
  const none = { takenAt: null, takenAtZone: null, timeZone: null };
  // exiftool-vendored gives a video without zone facts UTC; that says nothing of where it was taken.
  const zoneKnown = t.tzSource !== 'defaultVideosToUTC';
  for (const name of kind === 'image' ? IMAGE_DATES : VIDEO_DATES) {
    const dt = t[name];
    if (!(dt instanceof ExifDateTime) || !dt.isValid) continue;
    const offset = dt.hasZone && zoneKnown ? dt.tzoffsetMinutes : undefined;
    // Without a zone, the wall clock written as UTC (captureTime.ts's convention).
    const wall = Date.UTC(dt.year, dt.month - 1, dt.day, dt.hour, dt.minute, dt.second, dt.millisecond ?? 0);
    const ms = dt.hasZone ? dt.toMillis() : wall;
    const takenAt = plausibleCaptureTime(ms, kind === 'video');
    if (!takenAt) continue;
    if (offset === undefined || !Number.isFinite(offset)) return { ...none, takenAt };
    const tz = typeof t.tz === 'string' && t.tz.includes('/') ? t.tz : null;
    return { takenAt, takenAtZone: formatOffset(offset), timeZone: tz };
  }
  return none;
}

/**
 * What cameras write into ImageDescription by themselves ("OLYMPUS DIGITAL CAMERA", "SONY DSC", their own
 * name): not a description anyone wrote, so not one.
 */
const CAMERA_DEFAULTS = /^(?:[a-z ]*digital (?:still )?camera|sony dsc|default|image|photo|picture|untitled)$/i;

function authored(description: string | null, make: string | null, model: string | null): string | null {
  if (!description || CAMERA_DEFAULTS.test(description)) return null;
  const same = (v: string | null) => v !== null && v.toLowerCase() === description.toLowerCase();
  return same(make) || same(model) ? null : description;
}

/** 540 → "+09:00", -330 → "-05:30". */
export function formatOffset(minutes: number): string {
  const sign = minutes < 0 ? '-' : '+';
  const m = Math.abs(Math.round(minutes));
  return `${sign}${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`;
}

function location(t: Record<string, unknown>): CaptureFacts['location'] {
  const latitude = range(t.GPSLatitude, -90, 90, true);
  const longitude = range(t.GPSLongitude, -180, 180, true);
  if (latitude === null || longitude === null || (latitude === 0 && longitude === 0)) return null;
  const round = (v: number) => Math.round(v * 1e7) / 1e7; // ~1 cm: more digits are noise
  const altitude = range(t.GPSAltitude, -12_000, 100_000, true);
  return {
    latitude: round(latitude),
    longitude: round(longitude),
    altitude: altitude === null ? null : Math.round(altitude * 100) / 100,
    direction: range(t.GPSImgDirection, 0, 360, true),
  };
}

/** A finite number within [min, max] (min excluded unless `withMin`), else null. */
function range(v: unknown, min: number, max: number, withMin: boolean): number | null {
  const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isFinite(n) || n > max || n < min || (!withMin && n === min)) return null;
  return n;
}

function integerIn(v: unknown, min: number, max: number): number | null {
  const n = range(v, min, max, true);
  return n !== null && Number.isInteger(n) ? n : null;
}

// eslint-disable-next-line no-control-regex
const CONTROL_CHARS = /[\u0000-\u001f\u007f]+/g;

/** Trimmed text without control characters; null when empty (cameras pad ImageDescription with blanks). */
function text(v: unknown, max: number): string | null {
  if (typeof v !== 'string' && typeof v !== 'number') return null;
  const s = String(v).replace(CONTROL_CHARS, ' ').trim();
  return s === '' ? null : s.slice(0, max);
}

/** XMP keywords: an array, or one string ("a, b" from IPTC, "a;b" from Windows' XPKeywords). */
function keywords(v: unknown): string[] {
  const list = Array.isArray(v) ? v : typeof v === 'string' ? v.split(/[;,]/) : [];
  const out: string[] = [];
  for (const k of list) {
    const s = text(k, 100);
    if (s && !out.includes(s)) out.push(s);
    if (out.length >= MAX_KEYWORDS) break;
  }
  return out;
}

/**
 * The item's `exif` with the facts added: `exif.capture` holds them all, and the convenience fields clients
 * already read (make, model, lensModel, latitude …; exifToJson's) are filled where the file's own EXIF block
 * did not give them (a RAW, a video, an AVIF without one). Nothing already there is changed.
 */
export function withCaptureFacts(exif: Record<string, unknown>, facts: CaptureFacts): Record<string, unknown> {
  const fill: Record<string, unknown> = {
    make: facts.camera?.make,
    model: facts.camera?.model,
    lensModel: facts.camera?.lens,
    orientation: facts.orientation,
    exposureTime: facts.exposure.exposureTime,
    fNumber: facts.exposure.fNumber,
    iso: facts.exposure.iso,
    focalLength: facts.exposure.focalLength,
    latitude: facts.location?.latitude,
    longitude: facts.location?.longitude,
    altitude: facts.location?.altitude,
  };
  const out: Record<string, unknown> = { ...exif };
  for (const [k, v] of Object.entries(fill)) if (out[k] === undefined && v !== undefined && v !== null) out[k] = v;
  const { takenAt: _instant, ...stored } = facts; // the instant lives in its own column
  out.capture = stored;
  return out;
}
