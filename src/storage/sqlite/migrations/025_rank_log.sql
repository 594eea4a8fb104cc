-- The items an in-memory rank of a sort order (rankBlocks.ts) may place wrongly: each item that becomes live in a
-- place (its own level's media_scope row is written: an upload, a version switch, a restore, a move) and each
-- edit of a sort key a walk can start at (name, created_at, taken_at, type). A rank built earlier reads the rows
-- after the last one it read and places those items again. Only the last 65,536 rows are kept: a rank that
-- fell further behind is built again.
CREATE TABLE rank_log (
  seq INTEGER PRIMARY KEY,
  ord INTEGER NOT NULL
);

CREATE TRIGGER rank_log_live AFTER INSERT ON media_scope WHEN NEW.lvl = 1 BEGIN
  INSERT INTO rank_log (ord) VALUES (NEW.ord);
END;

CREATE TRIGGER rank_log_keys AFTER UPDATE OF name, created_at, taken_at, type ON media_scope
WHEN NEW.lvl = 1 AND (OLD.name IS NOT NEW.name OR OLD.created_at IS NOT NEW.created_at
  OR OLD.taken_at IS NOT NEW.taken_at OR OLD.type IS NOT NEW.type) BEGIN
  INSERT INTO rank_log (ord) VALUES (NEW.ord);
END;

CREATE TRIGGER rank_log_trim AFTER INSERT ON rank_log BEGIN
  DELETE FROM rank_log WHERE seq <= NEW.seq - 65536;
END;
