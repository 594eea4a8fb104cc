import type { JobStore } from '../../jobs/types.js';
import type { Db } from './database.js';

/** Where the pause of background work is kept (the settings table, shared by every process on the file). */
export const JOBS_PAUSED_SETTING = 'jobs_paused';

/** Bulk retry and the pause of background work on SQLite (the rest of the queue: jobStore.ts). */
export function sqliteJobPause(
  db: Db,
  retry: JobStore['retry'],
): Pick<JobStore, 'retryFailed' | 'setPaused' | 'isPaused'> {
  const failedIds = db
    .prepare(
      `SELECT id FROM jobs WHERE status = 'failed'
       AND (@types IS NULL OR type IN (SELECT value FROM json_each(@types))) ORDER BY id`,
    )
    .pluck();
  const read = db.prepare(`SELECT value FROM settings WHERE key = ?`).pluck();
  return {
    async retryFailed(types) {
      const ids = failedIds.all({ types: types ? JSON.stringify(types) : null }) as number[];
      let queued = 0;
      for (const id of ids) if ((await retry(id))?.id === id) queued++;
      return queued;
    },
    async setPaused(paused) {
      if (paused)
        db.prepare(
          `INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
        ).run(JOBS_PAUSED_SETTING, new Date().toISOString());
      else db.prepare(`DELETE FROM settings WHERE key = ?`).run(JOBS_PAUSED_SETTING);
    },
    async isPaused() {
      return (read.get(JOBS_PAUSED_SETTING) as string | undefined) ?? null;
    },
  };
}
