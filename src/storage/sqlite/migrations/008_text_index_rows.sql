-- Rows in the text index, kept by triggers. Search needs the number for idf
-- on every query, and count(*) over text_index_docs reads the whole of its
-- smallest index: ~130 ms at 2M rows (1M frames), a stall each time the
-- cached count expired. (FTS5's own row count, in its averages record, is not
-- lowered by deletes on a contentless_delete table.)

CREATE TABLE text_index_rows (
  id   INTEGER PRIMARY KEY CHECK (id = 1),
  rows INTEGER NOT NULL
);

INSERT INTO text_index_rows (id, rows) SELECT 1, count(*) FROM text_index_docs;

CREATE TRIGGER text_index_rows_insert AFTER INSERT ON text_index_docs BEGIN
  UPDATE text_index_rows SET rows = rows + 1 WHERE id = 1;
END;

CREATE TRIGGER text_index_rows_delete AFTER DELETE ON text_index_docs BEGIN
  UPDATE text_index_rows SET rows = rows - 1 WHERE id = 1;
END;
