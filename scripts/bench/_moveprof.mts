// Times each statement of a folder move at 1M (inside a transaction rolled back).
import { openSqliteStorage } from '../../src/storage/sqlite/index.js';
const st = openSqliteStorage(process.argv[2]);
const db = (st as any).db;
const origPrepare = db.prepare.bind(db);
const times: Array<[string, number]> = [];
db.prepare = (sql: string) => {
  const s = origPrepare(sql);
  const run = s.run.bind(s);
  s.run = (...a: unknown[]) => { const t = performance.now(); const r = run(...a); times.push([sql.replace(/\s+/g, ' ').slice(0, 90), performance.now() - t]); return r; };
  return s;
};
if (process.env.NOCKPT) db.pragma('wal_autocheckpoint = 0');
if (process.env.CACHE_MB) db.pragma(`cache_size = -${Number(process.env.CACHE_MB) * 1024}`);
const name = process.argv[3] ?? 'Large moving folder';
const id = origPrepare(`SELECT id FROM media WHERE type = 'folder' AND name = ?`).pluck().get(name) as string;
const root = origPrepare(`SELECT parent_path FROM media WHERE id = ?`).pluck().get(id) as string;
const dest = origPrepare(`SELECT path FROM media WHERE type='folder' AND name = 'Folder 3'`).pluck().get() as string;
const userId = origPrepare(`SELECT id FROM users LIMIT 1`).pluck().get() as string;
for (const to of [dest, root, dest, root]) {
  times.length = 0;
  const t0 = performance.now();
  db.exec('BEGIN');
  await st.media.move(id, to, userId);
  const t1 = performance.now();
  db.exec('COMMIT');
  const total = performance.now() - t0;
  console.log(`move to ${to === dest ? 'Folder 3' : 'root'}: ${total.toFixed(0)} ms (commit ${(performance.now() - t1).toFixed(0)} ms)`);
  for (const [sql, ms] of times) if (ms > 20) console.log(`  ${ms.toFixed(0).padStart(6)} ms  ${sql}`);
}
await st.close();
