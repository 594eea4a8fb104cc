import type { Db } from './database.js';

/** The labels of a path: the ancestors of a row whose parent path it is. */
const labelsOf = (path: string): string[] => path.split('.');

/**
 * Runs `rewritePaths` (the UPDATE of a folder's subtree paths) with the
 * per-row media_scope_move trigger held off, then moves the subtree's scopes
 * in set statements: every live row beneath the folder, and the folder, loses
 * the subtree rows of the ancestors it left and gains those of the ancestors it
 * joined; the folder's own level row moves to the new parent. Ancestors both
 * places share, the folder and everything below it keep their rows.
 * Called inside the move's transaction.
 */
export function moveFolderScopes(
  db: Db,
  folder: { id: string; parentPath: string },
  destination: string,
  rewritePaths: () => void,
): void {
  const before = labelsOf(folder.parentPath);
  const after = labelsOf(destination);
  const left = JSON.stringify(before.filter((label) => !after.includes(label)));
  const joined = JSON.stringify(after.filter((label) => !before.includes(label)));
  const key = Buffer.from(folder.id, 'hex');
  // The moved rows: the folder's subtree scope, and the folder itself (its own level row carries its keys).
  const moved = `SELECT item, type, created_at, name, description, prompt, taken_at, ord FROM media_scope WHERE scope = @key AND lvl = 0
     UNION ALL
     SELECT item, type, created_at, name, description, prompt, taken_at, ord FROM media_scope WHERE item = @key AND lvl = 1`;
  db.prepare(`INSERT INTO media_scope_bulk (held) VALUES (1)`).run();
  try {
    rewritePaths();
    moveBitmaps(db, moved, { key, left, joined });
    db.prepare(
      `DELETE FROM media_scope WHERE lvl = 0 AND scope IN (SELECT unhex(value) FROM json_each(@left))
         AND item IN (SELECT item FROM (${moved}))`,
    ).run({ key, left });
    db.prepare(
      `INSERT INTO media_scope (scope, lvl, item, type, created_at, name, description, prompt, taken_at, ord)
       SELECT unhex(a.value), 0, m.item, m.type, m.created_at, m.name, m.description, m.prompt, m.taken_at, m.ord
       FROM json_each(@joined) a CROSS JOIN (${moved}) m`,
    ).run({ key, joined });
  } finally {
    db.prepare(`DELETE FROM media_scope_bulk`).run();
  }
  // The folder's own level: its row under the old parent out, then in under the new one (in that order, so the
  // per-row triggers of migrations 021, 023 and 024 leave its day, month and scope bits set).
  const parent = Buffer.from(after[after.length - 1], 'hex');
  const own = db.prepare(`SELECT * FROM media_scope WHERE item = ? AND lvl = 1`).get(key) as
    Record<string, unknown> | undefined;
  if (!own || (own.scope as Buffer).equals(parent)) return;
  db.prepare(`DELETE FROM media_scope WHERE item = ? AND lvl = 1`).run(key);
  db.prepare(
    `INSERT INTO media_scope (scope, lvl, item, type, created_at, name, description, prompt, taken_at, ord)
     VALUES (@parent, 1, @item, @type, @created_at, @name, @description, @prompt, @taken_at, @ord)`,
  ).run({ ...own, parent });
}

/**
 * The moved items out of the browse bitmaps (migration 021) of the ancestors left and into those of the
 * ancestors joined, a chunk row at a time: their set per (type, chunk) once, then one or-ing or subtracting
 * update per row of each scope (the per-row triggers are held off by media_scope_bulk meanwhile).
 */
function moveBitmaps(db: Db, moved: string, params: { key: Buffer; left: string; joined: string }): void {
  db.exec(`CREATE TEMP TABLE IF NOT EXISTS moved_bits (type TEXT NOT NULL, chunk INTEGER NOT NULL, bits BLOB NOT NULL,
    PRIMARY KEY (type, chunk))`);
  db.exec(`DELETE FROM temp.moved_bits`);
  db.prepare(
    `INSERT INTO temp.moved_bits (type, chunk, bits)
     SELECT m.type, m.ord >> 14, bits_of(m.ord & 16383) FROM (${moved}) m GROUP BY m.type, m.ord >> 14`,
  ).run({ key: params.key });
  const delta = `(SELECT d.bits FROM temp.moved_bits d WHERE d.type = scope_bits.type AND d.chunk = scope_bits.chunk)`;
  const touched = `lvl = 0 AND scope IN (SELECT unhex(value) FROM json_each(@scopes))
    AND EXISTS (SELECT 1 FROM temp.moved_bits d WHERE d.type = scope_bits.type AND d.chunk = scope_bits.chunk)`;
  db.prepare(`UPDATE scope_bits SET bits = bits_andnot(bits, ${delta}) WHERE ${touched}`).run({ scopes: params.left });
  db.prepare(`UPDATE scope_bits SET bits = bits_or(bits, ${delta}) WHERE ${touched}`).run({ scopes: params.joined });
  db.prepare(
    `INSERT INTO scope_bits (scope, lvl, type, chunk, bits)
     SELECT unhex(a.value), 0, d.type, d.chunk, d.bits FROM json_each(@scopes) a CROSS JOIN temp.moved_bits d
     WHERE NOT EXISTS (SELECT 1 FROM scope_bits b
       WHERE b.scope = unhex(a.value) AND b.lvl = 0 AND b.type = d.type AND b.chunk = d.chunk)`,
  ).run({ scopes: params.joined });
}
