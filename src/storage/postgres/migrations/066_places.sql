-- Places (issue #26; SQLite: migrations/033_places.sql, the same rows): an item's position, camera and
-- nearest place in queryable columns, one row per item that has a position or a camera (folders never).
-- The position and the camera are copied from the exif document by the trigger below at every insert and
-- exif change (`exif.capture`, or for an item stored before it had one, exif's own latitude/longitude/
-- make/model). The place is computed offline by the places sweep (src/features/places/sweep.ts) and stored
-- with its data version (place_version; NULL: not yet). A changed position drops the place until the sweep
-- computes it again. city_key is the city lower-cased (JavaScript's toLowerCase), what `place=` matches.
CREATE TABLE media_places (
  media_id      text PRIMARY KEY,
  latitude      double precision,
  longitude     double precision,
  camera_make   text,
  camera_model  text,
  city          text,
  city_key      text,
  region        text,
  country       text,
  country_code  text,
  place_version text
);
CREATE INDEX media_places_country ON media_places (country_code, city_key);
CREATE INDEX media_places_city ON media_places (city_key);
CREATE INDEX media_places_camera ON media_places (lower(camera_model));
CREATE INDEX media_places_pending ON media_places (place_version) WHERE latitude IS NOT NULL;

-- The position and the camera an item's exif names (as SQLite's view of the same name).
CREATE VIEW media_place_facts AS
SELECT id,
       CASE WHEN json_typeof(lat) = 'number' AND json_typeof(lon) = 'number'
                 AND (lat #>> '{}')::float8 BETWEEN -90 AND 90 AND (lon #>> '{}')::float8 BETWEEN -180 AND 180
            THEN (lat #>> '{}')::float8 END AS latitude,
       CASE WHEN json_typeof(lat) = 'number' AND json_typeof(lon) = 'number'
                 AND (lat #>> '{}')::float8 BETWEEN -90 AND 90 AND (lon #>> '{}')::float8 BETWEEN -180 AND 180
            THEN (lon #>> '{}')::float8 END AS longitude,
       CASE WHEN json_typeof(make) = 'string' AND (make #>> '{}') <> '' THEN make #>> '{}' END AS camera_make,
       CASE WHEN json_typeof(model) = 'string' AND (model #>> '{}') <> '' THEN model #>> '{}' END AS camera_model
FROM (
  SELECT id,
         CASE WHEN captured THEN exif -> 'capture' -> 'location' -> 'latitude' ELSE exif -> 'latitude' END AS lat,
         CASE WHEN captured THEN exif -> 'capture' -> 'location' -> 'longitude' ELSE exif -> 'longitude' END AS lon,
         CASE WHEN captured THEN exif -> 'capture' -> 'camera' -> 'make' ELSE exif -> 'make' END AS make,
         CASE WHEN captured THEN exif -> 'capture' -> 'camera' -> 'model' ELSE exif -> 'model' END AS model
  FROM (SELECT id, exif, json_typeof(exif) = 'object' AND json_typeof(exif -> 'capture') = 'object' AS captured
        FROM media WHERE type <> 'folder' AND json_typeof(exif) = 'object') x
) y;

-- Brings one item's media_places row up to date with its exif (the place kept when the position is the same).
CREATE FUNCTION media_places_sync(mid text) RETURNS void
LANGUAGE sql SET search_path FROM CURRENT AS $$
  DELETE FROM media_places WHERE media_id = mid AND NOT EXISTS (
    SELECT 1 FROM media_place_facts f WHERE f.id = mid
      AND (f.latitude IS NOT NULL OR f.camera_make IS NOT NULL OR f.camera_model IS NOT NULL));
  INSERT INTO media_places AS p (media_id, latitude, longitude, camera_make, camera_model)
    SELECT f.id, f.latitude, f.longitude, f.camera_make, f.camera_model FROM media_place_facts f
    WHERE f.id = mid AND (f.latitude IS NOT NULL OR f.camera_make IS NOT NULL OR f.camera_model IS NOT NULL)
  ON CONFLICT (media_id) DO UPDATE SET
    camera_make = excluded.camera_make,
    camera_model = excluded.camera_model,
    city = CASE WHEN p.latitude IS NOT DISTINCT FROM excluded.latitude
                 AND p.longitude IS NOT DISTINCT FROM excluded.longitude THEN p.city END,
    city_key = CASE WHEN p.latitude IS NOT DISTINCT FROM excluded.latitude
                     AND p.longitude IS NOT DISTINCT FROM excluded.longitude THEN p.city_key END,
    region = CASE WHEN p.latitude IS NOT DISTINCT FROM excluded.latitude
                   AND p.longitude IS NOT DISTINCT FROM excluded.longitude THEN p.region END,
    country = CASE WHEN p.latitude IS NOT DISTINCT FROM excluded.latitude
                    AND p.longitude IS NOT DISTINCT FROM excluded.longitude THEN p.country END,
    country_code = CASE WHEN p.latitude IS NOT DISTINCT FROM excluded.latitude
                         AND p.longitude IS NOT DISTINCT FROM excluded.longitude THEN p.country_code END,
    place_version = CASE WHEN p.latitude IS NOT DISTINCT FROM excluded.latitude
                          AND p.longitude IS NOT DISTINCT FROM excluded.longitude THEN p.place_version END,
    latitude = excluded.latitude,
    longitude = excluded.longitude;
$$;

CREATE FUNCTION media_places_on_media() RETURNS trigger
LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    DELETE FROM media_places WHERE media_id = OLD.id;
  ELSIF NEW.type <> 'folder' THEN
    PERFORM media_places_sync(NEW.id);
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER media_places_media AFTER INSERT OR DELETE OR UPDATE OF exif ON media
  FOR EACH ROW EXECUTE FUNCTION media_places_on_media();

-- ------------------------------------------------------------------ the place in the text index
-- One text row per live item with a place, kind 'tag' (city, region and country searched like a tag value),
-- source `<media id> chr(31) 'place'`; an item made live again gets it back through text_index_add_media.
CREATE FUNCTION place_text_sync(mid text) RETURNS void
LANGUAGE sql SET search_path FROM CURRENT AS $$
  DELETE FROM text_index_docs WHERE source = mid || chr(31) || 'place' AND kind = 'tag';
  INSERT INTO text_index_docs (kind, source, media_id, frame_id, collection_id, terms)
    SELECT 'tag', mid || chr(31) || 'place', m.id, NULL, m.dataset_id,
           text_index_vector(p.city || coalesce(' ' || p.region, '') || ' ' || coalesce(p.country, ''), 'D')
    FROM media_places p JOIN media m ON m.id = p.media_id
    WHERE p.media_id = mid AND p.city IS NOT NULL
      AND m.status = 'active' AND m.is_current AND m.type <> 'folder';
$$;

CREATE FUNCTION place_text_on_place() RETURNS trigger
LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    PERFORM place_text_sync(OLD.media_id);
  ELSIF TG_OP = 'INSERT' OR OLD.city IS DISTINCT FROM NEW.city OR OLD.region IS DISTINCT FROM NEW.region
     OR OLD.country IS DISTINCT FROM NEW.country THEN
    PERFORM place_text_sync(NEW.media_id);
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER place_text_place AFTER INSERT OR DELETE OR UPDATE OF city, region, country ON media_places
  FOR EACH ROW EXECUTE FUNCTION place_text_on_place();

-- Every row of one item: its own, its tags', its active frames', its people's, and now its place's.
CREATE OR REPLACE FUNCTION text_index_add_media(mid text) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM text_index_add_item(mid);
  PERFORM text_index_add_tag(media_id, grp, value) FROM media_tags WHERE media_id = mid;
  PERFORM text_index_add_frame(id) FROM frames WHERE media_id = mid AND status = 'active';
  PERFORM people_text_sync(x.cluster_id, mid)
    FROM (SELECT DISTINCT cm.cluster_id FROM cluster_members cm JOIN clusters c ON c.id = cm.cluster_id
           WHERE cm.media_id = mid AND c.name IS NOT NULL) x;
  PERFORM place_text_sync(mid);
END
$$;

-- The rows of the items already stored (their places come from the sweep at the next start).
INSERT INTO media_places (media_id, latitude, longitude, camera_make, camera_model)
SELECT id, latitude, longitude, camera_make, camera_model FROM media_place_facts
WHERE latitude IS NOT NULL OR camera_make IS NOT NULL OR camera_model IS NOT NULL;
