/**
 * Geotagged items for the map and places browser tests, through the real upload route: the three GPS photos
 * of ../shared/fixtures/images (a Nikon in Arezzo, Italy) when present, and small JPEGs given GPS positions and
 * a camera by ExifTool (one process for all): five around Lisbon, three around Tokyo, two at the very same spot
 * in Paris (a cluster that never splits) and one with no position. Until the places API exists on the server,
 * `stubGeoApi` answers its three routes in the page from what was seeded (the page still asks 127.0.0.1 only).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import type { Page } from 'playwright-core';
import { waitForProcessing, type TestApp } from '../helpers/testApp.js';

const REPO_ROOT = path.resolve(import.meta.dirname, '..', '..');
const EXIFTOOL = path.join(REPO_ROOT, 'node_modules/exiftool-vendored.pl/bin/exiftool');
const FIXTURES = path.join(REPO_ROOT, '../shared/fixtures/images');

export interface GeoPoint {
  name: string;
  latitude: number;
  longitude: number;
  city: string;
  country: string;
  countryCode: string;
  camera: string;
}

const made = (name: string, latitude: number, longitude: number, city: string, country: string, code: string) => ({
  name,
  latitude,
  longitude,
  city,
  country,
  countryCode: code,
  camera: 'Pixel 8',
});

/** The generated positions (the fixtures' own come from their EXIF). */
export const GENERATED: GeoPoint[] = [
  made('lisbon-1.jpg', 38.7223, -9.1393, 'Lisbon', 'Portugal', 'PT'),
  made('lisbon-2.jpg', 38.7139, -9.1334, 'Lisbon', 'Portugal', 'PT'),
  made('lisbon-3.jpg', 38.7078, -9.1366, 'Lisbon', 'Portugal', 'PT'),
  made('lisbon-4.jpg', 38.7169, -9.1399, 'Lisbon', 'Portugal', 'PT'),
  made('lisbon-5.jpg', 38.7251, -9.15, 'Lisbon', 'Portugal', 'PT'),
  made('tokyo-1.jpg', 35.6762, 139.6503, 'Tokyo', 'Japan', 'JP'),
  made('tokyo-2.jpg', 35.6895, 139.6917, 'Tokyo', 'Japan', 'JP'),
  made('tokyo-3.jpg', 35.6586, 139.7454, 'Tokyo', 'Japan', 'JP'),
  made('paris-a.jpg', 48.8584, 2.2945, 'Paris', 'France', 'FR'),
  made('paris-b.jpg', 48.8584, 2.2945, 'Paris', 'France', 'FR'),
];
const FIXTURE_POINTS: GeoPoint[] = [
  { name: 'exif_gps_DSCN0010.jpg', latitude: 43.46745, longitude: 11.88513 },
  { name: 'exif_gps_DSCN0029.jpg', latitude: 43.46824, longitude: 11.88017 },
  { name: 'exif_gps_DSCN0040.jpg', latitude: 43.46601, longitude: 11.87911 },
].map((p) => ({ ...p, city: 'Arezzo', country: 'Italy', countryCode: 'IT', camera: 'COOLPIX P6000' }));

export interface GeoSeed {
  datasetId: string;
  points: Array<GeoPoint & { id: string }>;
  /** The server has GET /api/dataset/:id/map (the places branch); false: the page is given stubs. */
  realApi: boolean;
}

async function generatedFiles(dir: string): Promise<string[]> {
  const files: string[] = [];
  const args: string[] = ['-q', '-overwrite_original', '-n'];
  for (const [i, p] of GENERATED.entries()) {
    const file = path.join(dir, p.name);
    const colour = { r: (i * 53) % 256, g: (i * 97) % 256, b: (i * 31) % 256 };
    writeFileSync(
      file,
      await sharp({ create: { width: 96, height: 64, channels: 3, background: colour } })
        .jpeg()
        .toBuffer(),
    );
    args.push(`-GPSLatitude=${Math.abs(p.latitude)}`, `-GPSLatitudeRef=${p.latitude < 0 ? 'S' : 'N'}`);
    args.push(`-GPSLongitude=${Math.abs(p.longitude)}`, `-GPSLongitudeRef=${p.longitude < 0 ? 'W' : 'E'}`);
    args.push('-Make=Google', `-Model=${p.camera}`, file);
    if (i < GENERATED.length - 1) args.push('-execute', '-q', '-overwrite_original', '-n');
    files.push(file);
  }
  execFileSync('perl', [EXIFTOOL, ...args]);
  return files;
}

/** Uploads the geotagged items (and one without a position) into a new collection and waits for them. */
export async function seedGeo(server: TestApp, name = 'Travels'): Promise<GeoSeed> {
  const datasetId = await server.collection(name);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'mlib-geo-'));
  const files = await generatedFiles(dir);
  const wanted: Array<[GeoPoint, string]> = GENERATED.map((p, i) => [p, files[i]]);
  if (existsSync(FIXTURES)) for (const p of FIXTURE_POINTS) wanted.push([p, path.join(FIXTURES, p.name)]);
  else console.log('SKIP the fixture GPS photos: ../shared/fixtures/images is absent');
  const points: GeoSeed['points'] = [];
  for (const [p, file] of wanted) {
    const up = await server.upload({ datasetId }, { bytes: readFileSync(file), filename: p.name });
    if (up.status !== 200) throw new Error(`upload ${p.name}: ${up.status} ${JSON.stringify(up.body)}`);
    points.push({ ...p, id: up.body.mediaId });
  }
  const plain = await sharp({ create: { width: 40, height: 30, channels: 3, background: '#888' } })
    .jpeg()
    .toBuffer();
  const up = await server.upload({ datasetId }, { bytes: plain, filename: 'nowhere.jpg' });
  for (const id of [...points.map((p) => p.id), up.body.mediaId]) await waitForProcessing(server, id, 60_000);
  const realApi = (await server.request('GET', `/api/dataset/${datasetId}/map`)).status === 200;
  if (!realApi) console.log('NOTE the places API is not on this server yet: the map test stubs its three routes');
  return { datasetId, points, realApi };
}

/** Counts grouped by a key, largest first. */
function countBy<T>(items: T[], key: (t: T) => string): Array<[string, T[]]> {
  const groups = new Map<string, T[]>();
  for (const it of items) groups.set(key(it), [...(groups.get(key(it)) ?? []), it]);
  return [...groups].sort((a, b) => b[1].length - a[1].length);
}

/** Answers /map, /places and /cameras of `datasetId` in the page as the places branch's API would. */
export async function stubGeoApi(page: Page, datasetId: string, geo: GeoSeed['points']): Promise<void> {
  const base = `**/api/dataset/${datasetId}`;
  const json = (body: unknown) => ({ status: 200, contentType: 'application/json', body: JSON.stringify(body) });
  await page.route(`${base}/map*`, (route) =>
    route.fulfill(
      json({
        total: geo.length,
        ids: geo.map((p) => p.id),
        latitudes: geo.map((p) => p.latitude),
        longitudes: geo.map((p) => p.longitude),
      }),
    ),
  );
  await page.route(`${base}/places`, (route) =>
    route.fulfill(
      json({
        countries: countBy(geo, (p) => p.countryCode).map(([code, ps]) => ({
          countryCode: code,
          country: ps[0].country,
          count: ps.length,
        })),
        places: countBy(geo, (p) => p.city).map(([city, ps]) => ({
          city,
          region: null,
          country: ps[0].country,
          countryCode: ps[0].countryCode,
          count: ps.length,
          latitude: ps[0].latitude,
          longitude: ps[0].longitude,
        })),
      }),
    ),
  );
  await page.route(`${base}/cameras`, (route) =>
    route.fulfill(
      json({ cameras: countBy(geo, (p) => p.camera).map(([model, ps]) => ({ make: null, model, count: ps.length })) }),
    ),
  );
}
