import type { JobStore } from '../../jobs/types.js';
import type { PgDb } from '../../platform/pgDb.js';
import { JOBS_PAUSED_SETTING } from '../sqlite/jobPause.js';

/** Bulk retry and the pause of background work on PostgreSQL, as on SQLite (sqlite/jobPause.ts). */
export function pgJobPause(
  db: PgDb,
  retry: JobStore['retry'],
): Pick<JobStore, 'retryFailed' | 'setPaused' | 'isPaused'> {
  return {
    async retryFailed(types) {
      const rows = await db.many<{ id: number }>(
        `SELECT id FROM jobs WHERE status = 'failed' AND ($1::text[] IS NULL OR type = ANY($1::text[])) ORDER BY id`,
        [types ? [...types] : null],
      );
      let queued = 0;
      for (const { id } of rows) if ((await retry(id))?.id === id) queued++;
      return queued;
    },
    async setPaused(paused) {
      if (paused)
        await db.query(
          `INSERT INTO settings (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
          [JOBS_PAUSED_SETTING, new Date().toISOString()],
        );
      else await db.query(`DELETE FROM settings WHERE key = $1`, [JOBS_PAUSED_SETTING]);
    },
    async isPaused() {
      return (
        (await db.one<{ value: string }>(`SELECT value FROM settings WHERE key = $1`, [JOBS_PAUSED_SETTING]))?.value ??
        null
      );
    },
  };
}
