import {
  exifPlace,
  type CameraCount,
  type CountryCount,
  type MapPoints,
  type PlaceCount,
  type PlaceStore,
} from '../placeStore.js';
import type { Db } from './database.js';
import { placeClause } from './placeFilter.js';

/** The live, non-archived items of a collection, media m joined to their media_places p (migration 033). */
const LIVE = `FROM media_places p JOIN media m ON m.id = p.media_id
  WHERE m.dataset_id = ? AND m.status = 'active' AND m.is_current = 1 AND m.archived = 0 AND m.type != 'folder'`;

/** PlaceStore over SQLite (src/storage/placeStore.ts). */
export function sqlitePlaceStore(db: Db): PlaceStore {
  const pending = db.prepare(
    `SELECT media_id AS mediaId, latitude, longitude FROM media_places
     WHERE latitude IS NOT NULL AND (place_version IS NULL OR place_version != ?) LIMIT ?`,
  );
  const setPlaces = placeWriter(db);
  const countries = db.prepare(
    `SELECT p.country_code AS countryCode, max(p.country) AS country, count(*) AS count ${LIVE}
       AND p.country_code IS NOT NULL
     GROUP BY p.country_code ORDER BY count DESC, countryCode`,
  );
  const placesOf = (country: boolean) =>
    db.prepare(
      `SELECT p.city AS city, p.region AS region, max(p.country) AS country, p.country_code AS countryCode,
         count(*) AS count, avg(p.latitude) AS latitude, avg(p.longitude) AS longitude ${LIVE}
         AND p.city IS NOT NULL${country ? ' AND p.country_code = ?' : ''}
       GROUP BY p.country_code, p.region, p.city ORDER BY count DESC, city, countryCode, region`,
    );
  const allPlaces = placesOf(false);
  const countryPlaces = placesOf(true);
  const cameras = db.prepare(
    `SELECT p.camera_make AS make, p.camera_model AS model, count(*) AS count ${LIVE}
       AND (p.camera_make IS NOT NULL OR p.camera_model IS NOT NULL)
     GROUP BY p.camera_make, p.camera_model ORDER BY count DESC, model, make`,
  );
  const pointsOf = db.prepare(
    `SELECT j.value AS id, p.latitude AS latitude, p.longitude AS longitude
     FROM json_each(?) j CROSS JOIN media_places p ON p.media_id = j.value
     WHERE p.latitude IS NOT NULL ORDER BY j.key`,
  );

  const placeRows = db.prepare(`SELECT coalesce(max(rowid), 0) FROM media_places`).pluck();
  const allPoints = db.prepare(`SELECT media_id, latitude, longitude FROM media_places WHERE latitude IS NOT NULL`);
  /** Many ids against the table: one scan of it (≈ 1 µs a row) beats a lookup per id (≈ 5–10 µs by text key). */
  const points = (ids: string[]): MapPoints => {
    const out: MapPoints = { ids: [], latitudes: [], longitudes: [] };
    const add = (id: string, latitude: number, longitude: number) => {
      out.ids.push(id);
      out.latitudes.push(latitude);
      out.longitudes.push(longitude);
    };
    if (ids.length * 8 >= (placeRows.get() as number)) {
      const at = new Map<string, number>();
      const rows = allPoints.raw().all() as Array<[string, number, number]>;
      rows.forEach((r, i) => at.set(r[0], i));
      for (const id of ids) {
        const i = at.get(id);
        if (i !== undefined) add(id, rows[i][1], rows[i][2]);
      }
    } else {
      for (const r of pointsOf.all(JSON.stringify(ids)) as Array<{ id: string; latitude: number; longitude: number }>)
        add(r.id, r.latitude, r.longitude);
    }
    return out;
  };

  return {
    pending: async (version, limit) => pending.all(version, limit) as Awaited<ReturnType<PlaceStore['pending']>>,
    setPlaces: async (rows, version) => setPlaces(rows, version),
    places: async (collectionId, countryCode) => ({
      countries: countries.all(collectionId) as CountryCount[],
      places: (countryCode
        ? countryPlaces.all(collectionId, countryCode)
        : allPlaces.all(collectionId)) as PlaceCount[],
    }),
    cameras: async (collectionId) => cameras.all(collectionId) as CameraCount[],
    matching: async (ids, filter) => {
      const clause = placeClause(filter, 'j.value');
      if (!clause) return ids;
      return db
        .prepare(`SELECT j.value FROM json_each(?) j WHERE ${clause.sql}`)
        .pluck()
        .all(JSON.stringify(ids), ...clause.params) as string[];
    },
    points: async (ids) => points(ids),
  };
}

/** PlaceStore.setPlaces: each row only while the position is the same; `exif.place` beside it. */
function placeWriter(db: Db) {
  const setPlace = db.prepare(
    `UPDATE media_places SET city = @city, city_key = @cityKey, region = @region, country = @country,
       country_code = @countryCode, place_version = @version
     WHERE media_id = @mediaId AND latitude = @latitude AND longitude = @longitude`,
  );
  const setExif = db.prepare(`UPDATE media SET exif = json_set(exif, '$.place', json(?)) WHERE id = ?`);
  return db.transaction((rows: Parameters<PlaceStore['setPlaces']>[0], version: string) => {
    let changed = 0;
    for (const r of rows) {
      const p = r.place;
      const done = setPlace.run({
        mediaId: r.mediaId,
        latitude: r.latitude,
        longitude: r.longitude,
        version,
        city: p?.city ?? null,
        cityKey: p ? p.city.toLowerCase() : null,
        region: p?.region ?? null,
        country: p?.country ?? null,
        countryCode: p?.countryCode ?? null,
      });
      if (done.changes === 0) continue;
      changed++;
      setExif.run(JSON.stringify(exifPlace(p, r.latitude, r.longitude, version)), r.mediaId);
    }
    return changed;
  });
}
