import type Database from 'better-sqlite3';
import type { TextIndexWriter } from '../writer.js';
import type { Db } from './db.js';
import { scopeTokenSql } from './schema.js';

/**
 * The SQLite text index's writer: the stores call it inside their write transactions (see ../writer.ts), and
 * it adds and drops rows of `text_index` (FTS5) and `text_index_docs` (what each FTS row is about).
 *
 * What is indexed is what the views of migration 005 list (src/storage/sqlite/migrations/005_text_index.sql):
 * `text_index_items` (items active, current and not a folder: name and description), `text_index_tags` (their
 * tag values), `text_index_captions` and `text_index_ocr` (active captions and OCR text objects of active frames
 * of those items). One FTS row per source row: a source row's insert adds one row with a new, higher rowid and
 * its delete removes one (a tombstone), which is what FTS5 handles cheaply; a changed source is dropped and
 * added again. Adding first drops what was there, so it never duplicates a row.
 *
 * (Until migration 009 these statements ran in SQL triggers on the source tables; they are the same.)
 */

/** A source row's kind in text_index_docs (tags: see addTag). */
type SourceKind = 'item' | 'caption' | 'ocr';

/**
 * A frame's source kind: its rows from its view (docs) and its text, `table.textColumn`, into the FTS column of
 * the kind's name (fts), by source id.
 */
const frameSourceSql = (kind: 'caption' | 'ocr', view: string, table: string, textColumn: string) => ({
  docs: `SELECT '${kind}', source, media_id, frame_id FROM ${view} WHERE source = ?`,
  fts: `INSERT INTO text_index (rowid, ${kind}, scope)
        SELECT d.id, s.${textColumn}, ${scopeTokenSql('m.dataset_id')}
        FROM text_index_docs d JOIN ${table} s ON s.id = d.source JOIN media m ON m.id = d.media_id
        WHERE d.source = ? AND d.kind = '${kind}'`,
});

/** Per kind: its rows from its view (docs) and its text into the FTS columns (fts), by source id. */
const ADD_SQL: Record<SourceKind, { docs: string; fts: string }> = {
  item: {
    docs: `SELECT 'item', source, media_id, NULL FROM text_index_items WHERE source = ?`,
    fts: `INSERT INTO text_index (rowid, name, description, scope)
          SELECT d.id, m.name, m.description, ${scopeTokenSql('m.dataset_id')}
          FROM text_index_docs d JOIN media m ON m.id = d.source WHERE d.source = ? AND d.kind = 'item'`,
  },
  caption: frameSourceSql('caption', 'text_index_captions', 'captions', 'text'),
  ocr: frameSourceSql('ocr', 'text_index_ocr', 'detected_objects', 'label'),
};

/** A tag row's source in text_index_docs: item, group and value (named parameters) joined by char(31). */
const TAG_SOURCE = `@mediaId || char(31) || @group || char(31) || @value`;

export function sqliteTextIndexWriter(db: Db): TextIndexWriter {
  const statements = prepareWriter(db);
  const { drop, add, addTag, dropTagsOf, sourcesOfFrame, dropFrame, itemOf, tagsOf, framesOf, dropMedia, addPeople } =
    statements;
  const { addPlace } = statements;

  const addSource = (kind: SourceKind, source: string) => {
    drop[kind].forEach((st) => st.run(source));
    add[kind].docs.run(source);
    add[kind].fts.run(source);
  };
  const dropSources = (kind: SourceKind, sources: string[]) => {
    for (const source of sources) drop[kind].forEach((st) => st.run(source));
  };
  const addTagRow = (mediaId: string, group: string, value: string) => {
    for (const st of addTag) st.run({ mediaId, group, value });
  };
  const addFrame = (frameId: string) => {
    for (const r of sourcesOfFrame.all(frameId, frameId) as Array<{ kind: SourceKind; source: string }>)
      addSource(r.kind, r.source);
  };
  /** Every row of a live item: its own, its tags', its active frames'. Nothing for an item not live. */
  const addMedia = (mediaId: string) => {
    for (const source of itemOf.all(mediaId) as string[]) addSource('item', source);
    for (const t of tagsOf.all(mediaId) as Array<{ grp: string; tag: string }>) addTagRow(mediaId, t.grp, t.tag);
    for (const frameId of framesOf.all(mediaId) as string[]) addFrame(frameId);
    for (const st of addPeople) st.run(mediaId);
    for (const st of addPlace) st.run(mediaId);
  };

  return {
    reindexItemText: (mediaId) => addSource('item', mediaId),
    reindexMedia: (mediaIds) => {
      for (const mediaId of mediaIds) {
        dropMedia.forEach((st) => st.run(mediaId));
        addMedia(mediaId);
      }
    },
    dropTags: (mediaIds) => {
      if (mediaIds.length) dropTagsOf.forEach((st) => st.run(JSON.stringify(mediaIds)));
    },
    addTag: addTagRow,
    reindexFrames: (mediaId, frameIds) => {
      for (const frameId of frameIds) {
        dropFrame.forEach((st) => st.run(mediaId, frameId));
        addFrame(frameId);
      }
    },
    reindexCaptions: (captionIds) => captionIds.forEach((id) => addSource('caption', id)),
    dropCaptions: (captionIds) => dropSources('caption', captionIds),
    reindexObjects: (objectIds) => objectIds.forEach((id) => addSource('ocr', id)),
    dropObjects: (objectIds) => dropSources('ocr', objectIds),
  };
}

/** The writer's statements, prepared once. Pairs and triples run in order: FTS rows first, then their docs rows. */
function prepareWriter(db: Db) {
  const prepare = (...sql: string[]): Database.Statement[] => sql.map((s) => db.prepare(s));
  const dropOne = (kind: SourceKind) =>
    prepare(
      `DELETE FROM text_index WHERE rowid = (SELECT id FROM text_index_docs WHERE source = ? AND kind = '${kind}')`,
      `DELETE FROM text_index_docs WHERE source = ? AND kind = '${kind}'`,
    );
  const addOne = (kind: SourceKind) => ({
    docs: db.prepare(`INSERT INTO text_index_docs (kind, source, media_id, frame_id) ${ADD_SQL[kind].docs}`),
    fts: db.prepare(ADD_SQL[kind].fts),
  });
  const tagDocs = `SELECT t.media_id || char(31) || t.grp || char(31) || t.value FROM media_tags t
                   WHERE t.media_id IN (SELECT value FROM json_each(?))`;
  return {
    drop: { item: dropOne('item'), caption: dropOne('caption'), ocr: dropOne('ocr') },
    add: { item: addOne('item'), caption: addOne('caption'), ocr: addOne('ocr') },
    addTag: prepare(
      `DELETE FROM text_index WHERE rowid = (SELECT id FROM text_index_docs WHERE source = ${TAG_SOURCE} AND kind = 'tag')`,
      `DELETE FROM text_index_docs WHERE source = ${TAG_SOURCE} AND kind = 'tag'`,
      `INSERT INTO text_index_docs (kind, source, media_id, frame_id)
       SELECT 'tag', ${TAG_SOURCE}, i.media_id, NULL FROM text_index_items i
       WHERE i.source = @mediaId
         AND EXISTS (SELECT 1 FROM media_tags t WHERE t.media_id = @mediaId AND t.grp = @group AND t.value = @value)`,
      `INSERT INTO text_index (rowid, tag, scope)
       SELECT d.id, @value, ${scopeTokenSql('m.dataset_id')} FROM text_index_docs d JOIN media m ON m.id = d.media_id
       WHERE d.source = ${TAG_SOURCE} AND d.kind = 'tag'`,
    ),
    dropTagsOf: prepare(
      `DELETE FROM text_index WHERE rowid IN (SELECT id FROM text_index_docs WHERE kind = 'tag' AND source IN (${tagDocs}))`,
      `DELETE FROM text_index_docs WHERE kind = 'tag' AND source IN (${tagDocs})`,
    ),
    sourcesOfFrame: db.prepare(
      `SELECT 'caption' AS kind, source FROM text_index_captions WHERE frame_id = ?
       UNION ALL
       SELECT 'ocr', source FROM text_index_ocr WHERE frame_id = ?`,
    ),
    dropFrame: prepare(
      `DELETE FROM text_index WHERE rowid IN (SELECT id FROM text_index_docs WHERE media_id = ? AND frame_id = ?)`,
      `DELETE FROM text_index_docs WHERE media_id = ? AND frame_id = ?`,
    ),
    itemOf: db.prepare(`SELECT source FROM text_index_items WHERE media_id = ?`).pluck(),
    tagsOf: db.prepare(`SELECT grp, tag FROM text_index_tags WHERE media_id = ?`),
    framesOf: db.prepare(`SELECT id FROM frames WHERE media_id = ? AND status = 'active'`).pluck(),
    // The names of the people whose faces the item holds (migration 029: people_text_rows and the triggers
    // that keep these rows otherwise), after dropMedia.
    addPeople: prepare(
      `INSERT INTO text_index_docs (kind, source, media_id, frame_id)
       SELECT 'tag', source, media_id, NULL FROM people_text_rows WHERE media_id = ?`,
      `INSERT INTO text_index (rowid, tag, scope)
       SELECT d.id, p.name, ${scopeTokenSql('p.dataset_id')}
       FROM people_text_rows p JOIN text_index_docs d ON d.source = p.source AND d.kind = 'tag' WHERE p.media_id = ?`,
    ),
    // The item's place (migration 033: place_text_rows and the triggers that keep its row otherwise).
    addPlace: prepare(
      `INSERT INTO text_index_docs (kind, source, media_id, frame_id)
       SELECT 'tag', source, media_id, NULL FROM place_text_rows WHERE media_id = ?`,
      `INSERT INTO text_index (rowid, tag, scope)
       SELECT d.id, p.name, ${scopeTokenSql('p.dataset_id')}
       FROM place_text_rows p JOIN text_index_docs d ON d.source = p.source AND d.kind = 'tag' WHERE p.media_id = ?`,
    ),
    dropMedia: prepare(
      `DELETE FROM text_index WHERE rowid IN (SELECT id FROM text_index_docs WHERE media_id = ?)`,
      `DELETE FROM text_index_docs WHERE media_id = ?`,
    ),
  };
}
