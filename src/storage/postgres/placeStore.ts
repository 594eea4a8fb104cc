import type { PgDb } from '../../platform/pgDb.js';
import { placeClause } from './placeFilter.js';
import { exifPlace, type CameraCount, type CountryCount, type PlaceCount, type PlaceStore } from '../placeStore.js';

/** The live, non-archived items of a collection, media m joined to their media_places p (migration 066). */
const LIVE = `FROM media_places p JOIN media m ON m.id = p.media_id
  WHERE m.dataset_id = $1 AND m.status = 'active' AND m.is_current AND NOT m.archived AND m.type <> 'folder'`;

/** PlaceStore over PostgreSQL (src/storage/placeStore.ts; the same rows as SQLite's placeStore.ts). */
export function pgPlaceStore(db: PgDb): PlaceStore {
  return {
    pending: async (version, limit) =>
      db.many(
        `SELECT media_id AS "mediaId", latitude, longitude FROM media_places
         WHERE latitude IS NOT NULL AND (place_version IS NULL OR place_version <> $1) LIMIT $2`,
        [version, limit],
      ) as Promise<Awaited<ReturnType<PlaceStore['pending']>>>,

    setPlaces: (rows, version) => setPlaces(db, rows, version),

    places: async (collectionId, countryCode) => {
      const countries = await db.many<CountryCount>(
        `SELECT p.country_code AS "countryCode", max(p.country) AS country, count(*)::int AS count ${LIVE}
           AND p.country_code IS NOT NULL
         GROUP BY p.country_code ORDER BY count DESC, p.country_code COLLATE "C"`,
        [collectionId],
      );
      const places = await db.many<PlaceCount>(
        `SELECT p.city, p.region, max(p.country) AS country, p.country_code AS "countryCode", count(*)::int AS count,
           avg(p.latitude) AS latitude, avg(p.longitude) AS longitude ${LIVE}
           AND p.city IS NOT NULL${countryCode ? ' AND p.country_code = $2' : ''}
         GROUP BY p.country_code, p.region, p.city
         ORDER BY count DESC, p.city COLLATE "C", p.country_code COLLATE "C", p.region COLLATE "C"`,
        countryCode ? [collectionId, countryCode] : [collectionId],
      );
      return { countries, places };
    },

    cameras: async (collectionId) =>
      db.many<CameraCount>(
        `SELECT p.camera_make AS make, p.camera_model AS model, count(*)::int AS count ${LIVE}
           AND (p.camera_make IS NOT NULL OR p.camera_model IS NOT NULL)
         GROUP BY p.camera_make, p.camera_model
         ORDER BY count DESC, p.camera_model COLLATE "C" NULLS FIRST, p.camera_make COLLATE "C" NULLS FIRST`,
        [collectionId],
      ),

    matching: async (ids, filter) => {
      const params: unknown[] = [ids];
      const clause = placeClause(filter, (v) => `$${params.push(v)}`);
      if (!clause) return ids;
      const rows = await db.many<{ id: string }>(
        `SELECT m.id FROM unnest($1::text[]) AS m(id) WHERE ${clause}`,
        params,
      );
      return rows.map((r) => r.id);
    },
    points: async (ids) => {
      const rows = await db.many<{ id: string; latitude: number; longitude: number }>(
        `SELECT j.id, p.latitude, p.longitude
         FROM unnest($1::text[]) WITH ORDINALITY AS j(id, n) JOIN media_places p ON p.media_id = j.id
         WHERE p.latitude IS NOT NULL ORDER BY j.n`,
        [ids],
      );
      return {
        ids: rows.map((r) => r.id),
        latitudes: rows.map((r) => r.latitude),
        longitudes: rows.map((r) => r.longitude),
      };
    },
  };
}

/** The UPDATE's parameters of one computed place: $1…$9. */
function placeParams(r: Parameters<PlaceStore['setPlaces']>[0][number], version: string): unknown[] {
  const p = r.place;
  const city = p ? [p.city, p.city.toLowerCase(), p.region, p.country, p.countryCode] : [null, null, null, null, null];
  return [r.mediaId, r.latitude, r.longitude, ...city, version];
}

/** PlaceStore.setPlaces: each row only while the position is the same; `exif.place` beside it. */
function setPlaces(db: PgDb, rows: Parameters<PlaceStore['setPlaces']>[0], version: string): Promise<number> {
  return db.tx(async (tx) => {
    let changed = 0;
    for (const r of rows) {
      const p = r.place;
      const done = await tx.query(
        `UPDATE media_places SET city = $4, city_key = $5, region = $6, country = $7, country_code = $8,
           place_version = $9
         WHERE media_id = $1 AND latitude = $2 AND longitude = $3`,
        placeParams(r, version),
      );
      if (!done.rowCount) continue;
      changed++;
      // The document keeps its keys' order (json, not jsonb): the key is set in JavaScript.
      const row = await tx.one<{ exif: string }>(`SELECT exif::text AS exif FROM media WHERE id = $1 FOR UPDATE`, [
        r.mediaId,
      ]);
      if (!row) continue;
      const exif = { ...(JSON.parse(row.exif) as object), place: exifPlace(p, r.latitude, r.longitude, version) };
      await tx.query(`UPDATE media SET exif = $1 WHERE id = $2`, [JSON.stringify(exif), r.mediaId]);
    }
    return changed;
  });
}
