-- Live Photos (issue 26): the still and the motion of one Live Photo carry the same Apple content identifier,
-- read by ExifTool at upload into exif.capture.contentIdentifier. An upload of either half looks for the other
-- half in its collection by it; this partial expression index makes that a lookup instead of a scan of the
-- collection's rows' JSON. Only items that have one (iPhone photos and videos) are in it. The CASE keeps a row
-- whose exif is not valid JSON (none is written so, but an index build must not fail on one) out of it.
CREATE INDEX media_content_identifier
  ON media(dataset_id, json_extract(CASE WHEN json_valid(exif) THEN exif END, '$.capture.contentIdentifier'))
  WHERE json_extract(CASE WHEN json_valid(exif) THEN exif END, '$.capture.contentIdentifier') IS NOT NULL;
