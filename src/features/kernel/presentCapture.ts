/**
 * The capture facts of an item as the media object shows them (ours, beside the spec's `exif`, which stays
 * as it is): `takenAtZone`, `camera` and `location`. They are read from `exif.capture` (files/captureFacts.ts,
 * written at upload); an item stored before it had them falls back to exif's convenience fields.
 */
import { z } from 'zod';
import type { MediaRecord } from '../../storage/types.js';

/** The OpenAPI description of the three fields (and takenAt), for the media object's schema. */
export const captureFields = {
  takenAt: z
    .string()
    .nullable()
    .describe(
      'when the photo was taken or the video recorded, ISO 8601 UTC; with takenAtZone it is the true instant, ' +
        'without it the camera clock read as UTC; null when unknown',
    ),
  takenAtZone: z
    .string()
    .nullable()
    .describe(
      'UTC offset where it was taken ("+09:00"): written by the camera, or derived offline from the GPS position; ' +
        'null when neither says',
    ),
  camera: z
    .object({ make: z.string().nullable(), model: z.string().nullable(), lens: z.string().nullable() })
    .nullable()
    .describe('the camera as the file names it (EXIF/ExifTool); null when it names none'),
  location: z
    .object({
      latitude: z.number(),
      longitude: z.number(),
      altitude: z.number().nullable().describe('metres above sea level'),
      place: z
        .object({ city: z.string(), region: z.string().nullable(), country: z.string(), countryCode: z.string() })
        .nullable()
        .describe(
          'the nearest populated place within 100 km (offline reverse geocoding, GeoNames): city, region (state, ' +
            'province), English country name and ISO 3166-1 alpha-2 code; null until computed and where none is near',
        ),
    })
    .nullable()
    .describe('where it was taken (GPS, WGS 84 degrees); null without a plausible position'),
};

type Capture = {
  takenAtZone?: string | null;
  camera?: { make: string | null; model: string | null; lens: string | null } | null;
  location?: { latitude: number; longitude: number; altitude: number | null } | null;
};

const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : null);
const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : null);

type Place = { city: string; region: string | null; country: string; countryCode: string };

/** The place the places sweep stored in `exif.place`, when it was computed for this position. */
function placeAt(exif: Record<string, unknown>, at: { latitude: number; longitude: number }): Place | null {
  const p = exif.place as Partial<Place & { latitude: number; longitude: number }> | null | undefined;
  if (!p || typeof p !== 'object' || p.latitude !== at.latitude || p.longitude !== at.longitude) return null;
  if (typeof p.city !== 'string' || typeof p.country !== 'string' || typeof p.countryCode !== 'string') return null;
  return { city: p.city, region: str(p.region), country: p.country, countryCode: p.countryCode };
}

/** takenAtZone, camera and location of an item (null each when unknown; all null for folders). */
export function presentCapture(m: Pick<MediaRecord, 'exif'>) {
  const exif = m.exif ?? {};
  const capture = (exif.capture && typeof exif.capture === 'object' ? exif.capture : null) as Capture | null;
  const make = str(exif.make);
  const model = str(exif.model);
  const lens = str(exif.lensModel);
  const latitude = num(exif.latitude);
  const longitude = num(exif.longitude);
  const fallbackLocation =
    latitude !== null && longitude !== null ? { latitude, longitude, altitude: num(exif.altitude) } : null;
  const location = capture ? (capture.location ?? null) : fallbackLocation;
  return {
    takenAtZone: capture?.takenAtZone ?? null,
    camera: capture ? (capture.camera ?? null) : make || model || lens ? { make, model, lens } : null,
    location: location
      ? {
          latitude: location.latitude,
          longitude: location.longitude,
          altitude: location.altitude,
          place: placeAt(exif, location),
        }
      : null,
  };
}

/**
 * The media object for OpenAPI: the fields this module adds, described; the spec's other fields are open
 * (additional properties) here, as the hosted service's spec describes them.
 */
export const mediaObjectSchema = z
  .looseObject({
    id: z.string(),
    name: z.string(),
    type: z.enum(['image', 'video', 'folder']),
    mimeType: z.string().nullable(),
    width: z.number().nullable().describe('upright width in pixels (EXIF orientation, video rotation applied)'),
    height: z.number().nullable().describe('upright height in pixels'),
    playbackUrl: z
      .string()
      .nullable()
      .describe(
        "a video's URL for a browser's <video>: the original when browsers play it, else its web-playable copy " +
          '(H.264/AAC MP4, faststart, made after the analysis); null for images and until the copy is made',
      ),
    livePhoto: z
      .object({ motionUrl: z.string(), duration: z.number().nullable() })
      .nullable()
      .describe(
        "a Live Photo still's movie (the QuickTime file with the same Apple content identifier, kept whole): " +
          'the still is the item, the movie plays on hover or press; null for anything else',
      ),
    exif: z
      .record(z.string(), z.unknown())
      .describe("EXIF as JSON (the spec's), plus `capture`: the normalised facts ExifTool read"),
    favorite: z.boolean().describe('ours: a favourite (set with PATCH /api/media/{id})'),
    archived: z
      .boolean()
      .describe('ours: archived, left out of listings and search unless asked (archived=include|only)'),
    ...captureFields,
  })
  .describe("One item (the spec's Media object, with our fields)");
