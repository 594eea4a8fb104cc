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
  db.prepare(`INSERT INTO media_scope_bulk (held) VALUES (1)`).run();
  try {
    rewritePaths();
  } finally {
    db.prepare(`DELETE FROM media_scope_bulk`).run();
  }
  // The moved rows: the folder's subtree scope, and the folder itself (its own level row carries its keys).
  const moved = `SELECT item, type, created_at, name, description, prompt, taken_at FROM media_scope WHERE scope = @key AND lvl = 0
     UNION ALL
     SELECT item, type, created_at, name, description, prompt, taken_at FROM media_scope WHERE item = @key AND lvl = 1`;
  db.prepare(
    `DELETE FROM media_scope WHERE lvl = 0 AND scope IN (SELECT unhex(value) FROM json_each(@left))
       AND item IN (SELECT item FROM (${moved}))`,
  ).run({ key, left });
  db.prepare(
    `INSERT INTO media_scope (scope, lvl, item, type, created_at, name, description, prompt, taken_at)
     SELECT unhex(a.value), 0, m.item, m.type, m.created_at, m.name, m.description, m.prompt, m.taken_at
     FROM json_each(@joined) a CROSS JOIN (${moved}) m`,
  ).run({ key, joined });
  db.prepare(
    `INSERT OR IGNORE INTO media_scope (scope, lvl, item, type, created_at, name, description, prompt, taken_at)
     SELECT @parent, 1, item, type, created_at, name, description, prompt, taken_at FROM media_scope WHERE item = @key AND lvl = 1`,
  ).run({ key, parent: Buffer.from(after[after.length - 1], 'hex') });
  db.prepare(`DELETE FROM media_scope WHERE item = @key AND lvl = 1 AND scope != @parent`).run({
    key,
    parent: Buffer.from(after[after.length - 1], 'hex'),
  });
}
