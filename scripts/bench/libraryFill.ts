/**
 * A library file of the library bench's shape at any size, written with set
 * statements (so every trigger of the schema runs, as for an upload) instead
 * of one store call per item: `npx tsx scripts/bench/libraryFill.ts <file> <items>`,
 * then `npx tsx scripts/bench/libraryAt.ts <file>`. What the store writes
 * besides the rows and their triggers (the text index, events) is left out: the
 * browse reads do not use it.
 *
 * Shape: 20 top folders × 5 subfolders; 10,000 items beneath "Moving folder",
 * a tenth beneath "Large moving folder" (from 200,000 items), 62% of the rest
 * directly in "Big folder", the others spread over the root and every folder;
 * tags colour 80%, subject 60%, review 30%; a description on 30%; createdAt
 * spread over 2025.
 */
import { newMediaId } from '../../src/platform/ids.js';
import { openSqliteStorage } from '../../src/storage/sqlite/index.js';
import { benchCollection } from './benchCollection.js';

const [file, sizeArg] = process.argv.slice(2);
if (!file || !sizeArg) throw new Error('usage: npx tsx scripts/bench/libraryFill.ts <library.db> <items>');
const size = Number(sizeArg);
const st = openSqliteStorage(file);
const db = st.db;

const { userId, organizationId, collectionId, root } = await benchCollection(st, 'Bench');
const common = {
  collectionId,
  organizationId,
  createdById: userId,
  mimeType: null,
  width: null,
  height: null,
  duration: null,
  sizeBytes: 0,
  exif: {},
  processingStatus: 'ready' as const,
};
const folder = async (parentPath: string, name: string): Promise<string> =>
  (
    await st.media.insertFolder(
      { ...common, id: newMediaId(), parentPath, type: 'folder', name, blobKey: null, metadata: {} },
      false,
    )
  ).folder.path;

const tops: string[] = [];
const subsOf = new Map<string, string[]>();
for (let i = 0; i < 20; i++) {
  const name = i === 0 ? 'Big folder' : i === 1 ? 'Moving folder' : i === 2 ? 'Large moving folder' : `Folder ${i}`;
  const top = await folder(root, name);
  tops.push(top);
  const subs: string[] = [];
  for (let j = 0; j < 5; j++) subs.push(await folder(top, `Sub ${j}`));
  subsOf.set(top, subs);
}
const [big, moving, largeMoving] = tops;
const spread = [root, ...tops.filter((t) => t !== moving && t !== largeMoving), ...tops.flatMap((t) => subsOf.get(t)!)];
db.exec(`CREATE TEMP TABLE places (n INTEGER PRIMARY KEY, path TEXT NOT NULL)`);
const place = db.prepare(`INSERT INTO temp.places (n, path) VALUES (?, ?)`);
spread.forEach((p, n) => place.run(n, p));
const large = size >= 200_000 ? Math.floor(size / 10) : 0;

/** Items [from, to) of the library, one set statement (the parent of item n follows from n), then their tags. */
const batch = db.transaction((from: number, to: number) => {
  const firstRow = (db.prepare(`SELECT coalesce(max(rowid), 0) FROM media`).pluck().get() as number) + 1;
  db.prepare(
    `WITH RECURSIVE seq(n) AS (SELECT CAST(@from AS INTEGER) UNION ALL SELECT n + 1 FROM seq WHERE n + 1 < @to),
     items AS MATERIALIZED (
       SELECT n, lower(hex(randomblob(16))) AS id,
         CASE
           WHEN n < 10000 THEN json_extract(@moving, '$[' || (n % 5) || ']')
           WHEN n < 10000 + @large THEN json_extract(@largeMoving, '$[' || (n % 5) || ']')
           WHEN n % 100 < 62 THEN @big
           ELSE (SELECT path FROM temp.places WHERE places.n = abs(random()) % CAST(@places AS INTEGER))
         END AS parent,
         strftime('%Y-%m-%dT%H:%M:%fZ', 1735689600 + abs(random()) % 31536000, 'unixepoch') AS created,
         abs(random()) % 1000 AS r
       FROM seq)
     INSERT INTO media (id, dataset_id, organization_id, path, parent_path, type, name, blob_key, size_bytes,
       metadata, description, status, processing_status, root_id, is_current, created_at, updated_at, created_by)
     SELECT id, @collection, @organization, parent || '.' || id, parent, CASE WHEN r % 10 = 0 THEN 'video' ELSE 'image' END,
       'IMG_' || printf('%07d', abs(random()) % 10000000) || '.jpg', 'blob-' || id, 1000,
       CASE WHEN r < 300 THEN json_object('description', 'item ' || n) ELSE '{}' END,
       CASE WHEN r < 300 THEN 'item ' || n END,
       'active', 'ready', id, 1, created, created, @user
     FROM items`,
  ).run({
    from,
    to,
    moving: JSON.stringify(subsOf.get(moving)),
    largeMoving: JSON.stringify(subsOf.get(largeMoving)),
    large,
    big,
    places: spread.length,
    collection: collectionId,
    organization: organizationId,
    user: userId,
  });
  const tag = db.prepare(
    `INSERT INTO media_tags (media_id, dataset_id, grp, value)
     SELECT id, dataset_id, @grp, json_extract(@values, '$[' || (abs(random()) % json_array_length(@values)) || ']')
     FROM media WHERE rowid >= @firstRow AND abs(random()) % 100 < @share`,
  );
  tag.run({ grp: 'colour', values: '["red","blue","green","yellow"]', share: 80, firstRow });
  tag.run({ grp: 'subject', values: '["animal","person","food","landscape"]', share: 60, firstRow });
  tag.run({ grp: 'review', values: '["approved","rejected","to-check"]', share: 30, firstRow });
  // The tags into each row's metadata, as the store writes them.
  db.prepare(
    `UPDATE media SET metadata = json_set(metadata, '$.tags', (
       SELECT json_group_object(grp, json(vals)) FROM (
         SELECT grp, json_group_array(value) AS vals FROM media_tags WHERE media_id = media.id GROUP BY grp)))
     WHERE rowid >= ? AND EXISTS (SELECT 1 FROM media_tags WHERE media_id = media.id)`,
  ).run(firstRow);
});

const started = performance.now();
const STEP = 20_000;
for (let from = 0; from < size; from += STEP) {
  batch(from, Math.min(size, from + STEP));
  const done = Math.min(size, from + STEP);
  const s = (performance.now() - started) / 1000;
  console.log(`${done.toLocaleString('en')} items, ${s.toFixed(0)} s (${((s * 1e6) / done).toFixed(0)} µs an item)`);
}
db.exec('ANALYZE');
await st.close();
