/**
 * EXIF as plain JSON (the `exif` field of an item), from the raw EXIF block
 * sharp reads out of a file.
 */
import exifReader from 'exif-reader';

/** Offsets to other IFDs and to the embedded thumbnail: meaningless outside the file. */
const POINTER_TAGS = new Set([
  'ExifTag',
  'GPSTag',
  'InteroperabilityTag',
  'JPEGInterchangeFormat',
  'JPEGInterchangeFormatLength',
]);
/** Groups dropped whole: IFD1 only describes the embedded thumbnail. */
const DROPPED_GROUPS = new Set(['bigEndian', 'Thumbnail']);
/** Buffers rendered as text when printable; longer ones (MakerNote) are dropped. */
const MAX_BUFFER_TEXT = 256;

/**
 * Converts a raw EXIF block (sharp's `metadata().exif`, "Exif\0\0" header
 * included) to plain JSON: the exif-reader groups (Image, Photo, GPSInfo, Iop)
 * with Dates as ISO strings, printable Buffers as strings, other Buffers
 * dropped, BigInts as numbers; plus convenience fields at the top level
 * (make, model, lensModel, dateTimeOriginal, orientation, exposureTime,
 * fNumber, iso, focalLength, latitude, longitude, altitude) and `tags: {}`.
 * Unreadable EXIF gives `{ tags: {} }`: EXIF is a nicety, never a reason to
 * refuse an image.
 *
 * Note on dates: EXIF times carry no zone. exif-reader reads them as UTC, so
 * "2008:10:22 16:28:39" becomes "2008-10-22T16:28:39.000Z": the camera's wall
 * clock, not a true instant. The capture time (`takenAt`, captureTime.ts)
 * applies OffsetTimeOriginal to it when the file has one.
 */
export function exifToJson(raw: Buffer): Record<string, unknown> {
  let parsed: Record<string, unknown>;
  try {
    parsed = exifReader(raw) as unknown as Record<string, unknown>;
  } catch {
    return { tags: {} };
  }
  const groups: Record<string, Record<string, unknown>> = {};
  for (const [name, group] of Object.entries(parsed)) {
    if (DROPPED_GROUPS.has(name) || !group || typeof group !== 'object') continue;
    const out: Record<string, unknown> = {};
    for (const [tag, value] of Object.entries(group as Record<string, unknown>)) {
      if (POINTER_TAGS.has(tag)) continue;
      const v = toJsonValue(value);
      if (v !== undefined) out[tag] = v;
    }
    if (Object.keys(out).length > 0) groups[name] = out;
  }

  const image = groups.Image ?? {};
  const photo = groups.Photo ?? {};
  const gps = groups.GPSInfo ?? {};
  const top: Record<string, unknown> = {
    make: nonEmptyString(image.Make),
    model: nonEmptyString(image.Model),
    lensModel: nonEmptyString(photo.LensModel),
    dateTimeOriginal: nonEmptyString(photo.DateTimeOriginal) ?? nonEmptyString(image.DateTime),
    orientation: finite(image.Orientation),
    exposureTime: finite(photo.ExposureTime),
    fNumber: finite(photo.FNumber),
    iso:
      finite(Array.isArray(photo.ISOSpeedRatings) ? photo.ISOSpeedRatings[0] : photo.ISOSpeedRatings) ??
      finite(photo.PhotographicSensitivity),
    focalLength: finite(photo.FocalLength),
    latitude: gpsDegrees(gps.GPSLatitude, gps.GPSLatitudeRef, 'S', 90),
    longitude: gpsDegrees(gps.GPSLongitude, gps.GPSLongitudeRef, 'W', 180),
    // The raw ref: a one-byte Buffer in some files, which the conversion above drops.
    altitude: gpsAltitude(gps.GPSAltitude, (parsed.GPSInfo as Record<string, unknown> | undefined)?.GPSAltitudeRef),
  };
  const result: Record<string, unknown> = { tags: {} };
  for (const [k, v] of Object.entries(top)) if (v !== undefined) result[k] = v;
  return { ...result, ...groups };
}

/** One EXIF value as JSON, or undefined to drop it. */
function toJsonValue(value: unknown): unknown {
  if (value === null || value === undefined) return undefined;
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? undefined : value.toISOString();
  if (Buffer.isBuffer(value)) return bufferText(value);
  if (typeof value === 'bigint') return Number(value);
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value === 'string') {
    // EXIF strings are NUL-padded and often blank-padded (e.g. ImageDescription of 31 spaces).
    const s = value.replace(/\0/g, '').trim();
    return s === '' ? undefined : s;
  }
  if (typeof value === 'boolean') return value;
  if (Array.isArray(value)) {
    const arr = value.map(toJsonValue);
    return arr.some((v) => v === undefined) ? undefined : arr;
  }
  return undefined;
}

/**
 * A Buffer as text when it holds short printable text (ExifVersion "0230",
 * UserComment "ASCII\0\0\0hello"); otherwise undefined. Binary blobs such as
 * MakerNote would bloat every listing and mean nothing to a client.
 */
function bufferText(buf: Buffer): string | undefined {
  let b = buf;
  // UserComment starts with an 8-byte character code.
  const code = b.subarray(0, 8).toString('latin1');
  if (code === 'ASCII\0\0\0' || code === 'UNICODE\0' || code === '\0\0\0\0\0\0\0\0') b = b.subarray(8);
  if (code === 'UNICODE\0') return undefined; // UCS-2 of unknown byte order: rare, skip it
  const text = b.toString('latin1').replace(/\0+$/, '').trim();
  if (text === '' || text.length > MAX_BUFFER_TEXT || !/^[\x20-\x7e]+$/.test(text)) return undefined;
  return text;
}

function nonEmptyString(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' ? v : undefined;
}

function finite(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

/** [degrees, minutes, seconds] plus a hemisphere letter → signed decimal degrees, or undefined when invalid. */
function gpsDegrees(dms: unknown, ref: unknown, negativeRef: string, max: number): number | undefined {
  let deg: number | undefined;
  if (Array.isArray(dms) && dms.length > 0 && dms.every((x) => typeof x === 'number' && Number.isFinite(x))) {
    const [d, m = 0, s = 0] = dms as number[];
    deg = d + m / 60 + s / 3600;
  } else {
    deg = finite(dms);
  }
  if (deg === undefined || deg < 0 || deg > max) return undefined;
  if (typeof ref === 'string' && ref.trim().toUpperCase() === negativeRef) deg = -deg;
  return Math.round(deg * 1e7) / 1e7; // ~1 cm: more digits are noise
}

/** GPSAltitude in metres; GPSAltitudeRef 1 means below sea level. */
function gpsAltitude(alt: unknown, ref: unknown): number | undefined {
  const a = finite(alt);
  if (a === undefined) return undefined;
  const below = ref === 1 || (Buffer.isBuffer(ref) && ref[0] === 1) || ref === '1';
  return below ? -a : a;
}
