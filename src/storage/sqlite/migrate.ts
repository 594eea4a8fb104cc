import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { PACKAGE_ROOT } from '../../platform/packageRoot.js';
import type Database from 'better-sqlite3';

/** The numbered `.sql` files, shipped in the source tree (the compiled server reads them from there too). */
const MIGRATIONS_DIR = path.join(PACKAGE_ROOT, 'src', 'storage', 'sqlite', 'migrations');

/** Applies each migration not yet recorded, in number order, each in its own transaction. */
export function migrate(db: Database.Database): string[] {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)`);
  const done = new Set(db.prepare(`SELECT name FROM schema_migrations`).pluck().all() as string[]);
  const files = readdirSync(MIGRATIONS_DIR)
    .filter((f) => /^\d+_.*\.sql$/.test(f))
    .sort();
  const applied: string[] = [];
  for (const file of files) {
    if (done.has(file)) continue;
    const sql = readFileSync(path.join(MIGRATIONS_DIR, file), 'utf8');
    db.transaction(() => {
      db.exec(sql);
      db.prepare(`INSERT INTO schema_migrations (name, applied_at) VALUES (?, ?)`).run(file, new Date().toISOString());
    })();
    applied.push(file);
  }
  return applied;
}
