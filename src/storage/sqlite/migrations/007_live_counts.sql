-- Counts of live items (active, current version) per folder level and per
-- collection, kept by triggers, so an unfiltered listing's total is one row
-- read instead of a count over tens of thousands of index entries.
-- kind 'children': key = the parent's last path label (a folder id, or the
-- collection label at the root). A move rewrites parent paths below the moved
-- folder but not their last label, so only the moved row's own count changes.
-- kind 'dataset': key = the collection id.

CREATE TABLE live_counts (
  kind TEXT NOT NULL,
  key  TEXT NOT NULL,
  n    INTEGER NOT NULL,
  PRIMARY KEY (kind, key)
) WITHOUT ROWID;

INSERT INTO live_counts (kind, key, n)
  SELECT 'children', substr(parent_path, -32), count(*) FROM media
  WHERE status = 'active' AND is_current = 1 GROUP BY substr(parent_path, -32);
INSERT INTO live_counts (kind, key, n)
  SELECT 'dataset', dataset_id, count(*) FROM media
  WHERE status = 'active' AND is_current = 1 GROUP BY dataset_id;

CREATE TRIGGER media_live_count_insert AFTER INSERT ON media
WHEN NEW.status = 'active' AND NEW.is_current = 1 BEGIN
  INSERT INTO live_counts (kind, key, n) VALUES ('children', substr(NEW.parent_path, -32), 1)
    ON CONFLICT (kind, key) DO UPDATE SET n = n + 1;
  INSERT INTO live_counts (kind, key, n) VALUES ('dataset', NEW.dataset_id, 1)
    ON CONFLICT (kind, key) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER media_live_count_update AFTER UPDATE OF status, is_current, parent_path ON media
WHEN (OLD.status = 'active' AND OLD.is_current = 1) != (NEW.status = 'active' AND NEW.is_current = 1)
  OR substr(OLD.parent_path, -32) != substr(NEW.parent_path, -32) BEGIN
  UPDATE live_counts SET n = n - 1
    WHERE OLD.status = 'active' AND OLD.is_current = 1
      AND ((kind = 'children' AND key = substr(OLD.parent_path, -32)) OR (kind = 'dataset' AND key = OLD.dataset_id));
  INSERT INTO live_counts (kind, key, n)
    SELECT 'children', substr(NEW.parent_path, -32), 1 WHERE NEW.status = 'active' AND NEW.is_current = 1
    ON CONFLICT (kind, key) DO UPDATE SET n = n + 1;
  INSERT INTO live_counts (kind, key, n)
    SELECT 'dataset', NEW.dataset_id, 1 WHERE NEW.status = 'active' AND NEW.is_current = 1
    ON CONFLICT (kind, key) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER media_live_count_delete AFTER DELETE ON media
WHEN OLD.status = 'active' AND OLD.is_current = 1 BEGIN
  UPDATE live_counts SET n = n - 1
    WHERE (kind = 'children' AND key = substr(OLD.parent_path, -32)) OR (kind = 'dataset' AND key = OLD.dataset_id);
END;
