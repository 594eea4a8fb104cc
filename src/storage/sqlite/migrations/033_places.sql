-- Places (issue #26): an item's position, camera and nearest place in queryable columns, one row per item
-- that has a position or a camera (folders never). The position and the camera are copied from the exif
-- document by the triggers below at every insert and exif change (`exif.capture`, written at upload from
-- ExifTool's tags, or for an item stored before it had one, exif's own latitude/longitude/make/model: what
-- src/features/kernel/presentCapture.ts shows). The place (city, region, country) is computed offline by
-- the places sweep (src/features/places/sweep.ts) and stored with the data version it was computed with
-- (place_version; NULL: not yet), so a newer GeoNames package recomputes it. A changed position drops the
-- place until the sweep computes it again. city_key is the city lower-cased (JavaScript's toLowerCase):
-- the `place=` filter matches it.
CREATE TABLE media_places (
  media_id      TEXT PRIMARY KEY,
  latitude      REAL,
  longitude     REAL,
  camera_make   TEXT,
  camera_model  TEXT,
  city          TEXT,
  city_key      TEXT,
  region        TEXT,
  country       TEXT,
  country_code  TEXT,
  place_version TEXT
);
CREATE INDEX media_places_country ON media_places (country_code, city_key);
CREATE INDEX media_places_city ON media_places (city_key);
CREATE INDEX media_places_camera ON media_places (camera_model COLLATE NOCASE);
CREATE INDEX media_places_pending ON media_places (place_version) WHERE latitude IS NOT NULL;

-- The position and the camera an item's exif names: capture facts when the document has them, else exif's
-- convenience fields; a position only when both numbers are plausible degrees.
CREATE VIEW media_place_facts AS
SELECT id, CASE WHEN typeof(lat) IN ('real', 'integer') AND typeof(lon) IN ('real', 'integer')
                 AND lat BETWEEN -90 AND 90 AND lon BETWEEN -180 AND 180 THEN lat END AS latitude,
       CASE WHEN typeof(lat) IN ('real', 'integer') AND typeof(lon) IN ('real', 'integer')
                 AND lat BETWEEN -90 AND 90 AND lon BETWEEN -180 AND 180 THEN lon END AS longitude,
       CASE WHEN typeof(make) = 'text' AND make != '' THEN make END AS camera_make,
       CASE WHEN typeof(model) = 'text' AND model != '' THEN model END AS camera_model
FROM (
  SELECT id,
         CASE WHEN captured THEN json_extract(exif, '$.capture.location.latitude') ELSE json_extract(exif, '$.latitude') END AS lat,
         CASE WHEN captured THEN json_extract(exif, '$.capture.location.longitude') ELSE json_extract(exif, '$.longitude') END AS lon,
         CASE WHEN captured THEN json_extract(exif, '$.capture.camera.make') ELSE json_extract(exif, '$.make') END AS make,
         CASE WHEN captured THEN json_extract(exif, '$.capture.camera.model') ELSE json_extract(exif, '$.model') END AS model
  FROM (SELECT id, exif, json_valid(exif) AND json_type(exif, '$.capture') = 'object' AS captured
        FROM media WHERE type != 'folder' AND json_valid(exif))
);

-- Writing a media id here brings its media_places row up to date with its exif (kept place when the
-- position is the same; the row goes when the item names neither a position nor a camera).
CREATE VIEW media_places_sync (media_id) AS SELECT NULL WHERE 0;
CREATE TRIGGER media_places_sync_run INSTEAD OF INSERT ON media_places_sync BEGIN
  DELETE FROM media_places WHERE media_id = NEW.media_id AND NOT EXISTS (
    SELECT 1 FROM media_place_facts f WHERE f.id = NEW.media_id
      AND (f.latitude IS NOT NULL OR f.camera_make IS NOT NULL OR f.camera_model IS NOT NULL));
  INSERT INTO media_places (media_id, latitude, longitude, camera_make, camera_model)
    SELECT f.id, f.latitude, f.longitude, f.camera_make, f.camera_model FROM media_place_facts f
    WHERE f.id = NEW.media_id AND (f.latitude IS NOT NULL OR f.camera_make IS NOT NULL OR f.camera_model IS NOT NULL)
  ON CONFLICT (media_id) DO UPDATE SET
    camera_make = excluded.camera_make,
    camera_model = excluded.camera_model,
    city = CASE WHEN latitude IS excluded.latitude AND longitude IS excluded.longitude THEN city END,
    city_key = CASE WHEN latitude IS excluded.latitude AND longitude IS excluded.longitude THEN city_key END,
    region = CASE WHEN latitude IS excluded.latitude AND longitude IS excluded.longitude THEN region END,
    country = CASE WHEN latitude IS excluded.latitude AND longitude IS excluded.longitude THEN country END,
    country_code = CASE WHEN latitude IS excluded.latitude AND longitude IS excluded.longitude THEN country_code END,
    place_version = CASE WHEN latitude IS excluded.latitude AND longitude IS excluded.longitude THEN place_version END,
    latitude = excluded.latitude,
    longitude = excluded.longitude;
END;

CREATE TRIGGER media_places_insert AFTER INSERT ON media WHEN NEW.type != 'folder' BEGIN
  INSERT INTO media_places_sync VALUES (NEW.id);
END;
CREATE TRIGGER media_places_exif AFTER UPDATE OF exif ON media WHEN NEW.type != 'folder' BEGIN
  INSERT INTO media_places_sync VALUES (NEW.id);
END;
CREATE TRIGGER media_places_delete AFTER DELETE ON media BEGIN
  DELETE FROM media_places WHERE media_id = OLD.id;
END;

-- ------------------------------------------------------------------ the place in the text index
-- One text row per live item with a place, kind 'tag' (its city, region and country are searched like a
-- tag value: `q=Lisbon`, `q=Portugal`), source `<media id> char(31) 'place'`. The triggers below keep it in
-- step with the place; the text index writer (src/index/text/sqlite/writer.ts) adds an item's row again,
-- from place_text_rows, when the item becomes live again.
CREATE VIEW place_text_rows AS
SELECT p.media_id || char(31) || 'place' AS source, p.media_id AS media_id, m.dataset_id AS dataset_id,
       p.city || coalesce(' ' || p.region, '') || ' ' || coalesce(p.country, '') AS name
FROM media_places p JOIN media m ON m.id = p.media_id
WHERE p.city IS NOT NULL AND m.status = 'active' AND m.is_current = 1 AND m.type != 'folder';

CREATE VIEW place_text_sync (media_id) AS SELECT NULL WHERE 0;
CREATE TRIGGER place_text_sync_run INSTEAD OF INSERT ON place_text_sync BEGIN
  DELETE FROM text_index WHERE rowid =
    (SELECT id FROM text_index_docs WHERE source = NEW.media_id || char(31) || 'place' AND kind = 'tag');
  DELETE FROM text_index_docs WHERE source = NEW.media_id || char(31) || 'place' AND kind = 'tag';
  INSERT INTO text_index_docs (kind, source, media_id, frame_id)
    SELECT 'tag', source, media_id, NULL FROM place_text_rows WHERE media_id = NEW.media_id;
  INSERT INTO text_index (rowid, tag, scope)
    SELECT d.id, p.name, 'ds' || replace(lower(p.dataset_id), '-', '') || '0'
    FROM place_text_rows p JOIN text_index_docs d ON d.source = p.source AND d.kind = 'tag'
    WHERE p.media_id = NEW.media_id;
END;

CREATE TRIGGER place_text_changed AFTER UPDATE OF city, region, country ON media_places
WHEN OLD.city IS NOT NEW.city OR OLD.region IS NOT NEW.region OR OLD.country IS NOT NEW.country
BEGIN
  INSERT INTO place_text_sync VALUES (NEW.media_id);
END;
CREATE TRIGGER place_text_gone AFTER DELETE ON media_places WHEN OLD.city IS NOT NULL BEGIN
  INSERT INTO place_text_sync VALUES (OLD.media_id);
END;

-- The rows of the items already stored (their places come from the sweep at the next start).
INSERT INTO media_places (media_id, latitude, longitude, camera_make, camera_model)
SELECT id, latitude, longitude, camera_make, camera_model FROM media_place_facts
WHERE latitude IS NOT NULL OR camera_make IS NOT NULL OR camera_model IS NOT NULL;
