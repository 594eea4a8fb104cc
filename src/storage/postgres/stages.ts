/**
 * An item's analysis stages on PostgreSQL (table media_stages): which ran, which wait for a model that is
 * not installed, which are off. SQLite: src/storage/sqlite/stageStore.ts.
 */
import type { PgDb } from '../../platform/pgDb.js';
import { mediaEvent } from '../sqlite/eventLog.js';
import { waitingCountsOf, waitingOf } from '../sqlite/stageStore.js';
import type { AnalysisStore } from '../storage.js';
import type { StageRecord } from '../types.js';
import { appendEvent } from './eventAppend.js';
import type { PgEventHub } from './eventHub.js';
import { activeItemRow } from './itemEventRow.js';

interface StageRow {
  media_id: string;
  stage: string;
  state: StageRecord['state'];
  model: string | null;
}

export function pgStages(
  db: PgDb,
  hub: PgEventHub,
): Pick<AnalysisStore, 'setStages' | 'stagesOf' | 'waitingFor' | 'waitingCounts'> {
  return {
    async setStages(mediaId, stages) {
      const appended = await db.tx(async (tx) => {
        const at = new Date().toISOString();
        // Deleted with FOR UPDATE semantics: a concurrent setStages of the item waits here, then reads ours.
        const before = await tx.many<StageRecord>(
          `DELETE FROM media_stages WHERE media_id = $1 RETURNING stage, state, model`,
          [mediaId],
        );
        if (stages.length) {
          await tx.query(
            `INSERT INTO media_stages (media_id, stage, state, model, updated_at)
             SELECT $1, u.stage, u.state, u.model, $2 FROM unnest($3::text[], $4::text[], $5::text[]) AS u(stage, state, model)`,
            [mediaId, at, stages.map((s) => s.stage), stages.map((s) => s.state), stages.map((s) => s.model)],
          );
        }
        // During an ingest the item is `processing` and its `ready` event names the waiting stages; a catch-up
        // changes them while the item stays `ready`: that change is an event of its own.
        const waiting = waitingOf(stages);
        if (JSON.stringify(waiting) === JSON.stringify(waitingOf(before))) return false;
        const item = await activeItemRow(tx, mediaId, true);
        if (!item) return false;
        await appendEvent(tx, mediaEvent('media.status', item, { waiting }));
        return true;
      });
      if (appended) hub.appended();
    },
    async stagesOf(mediaIds) {
      const out = new Map<string, StageRecord[]>();
      if (mediaIds.length === 0) return out;
      const rows = await db.many<StageRow>(
        `SELECT media_id, stage, state, model FROM media_stages WHERE media_id = ANY ($1)`,
        [mediaIds],
      );
      for (const r of rows) {
        let list = out.get(r.media_id);
        if (!list) out.set(r.media_id, (list = []));
        list.push({ stage: r.stage, state: r.state, model: r.model });
      }
      return out;
    },
    async waitingFor(models, limit, afterId = '') {
      if (models.length === 0) return [];
      const rows = await db.many<{ media_id: string }>(
        `SELECT DISTINCT s.media_id FROM media_stages s JOIN media m ON m.id = s.media_id
         WHERE s.state = 'waiting' AND s.model = ANY ($1) AND s.media_id > $2
           AND m.status = 'active' AND m.processing_status = 'ready'
         ORDER BY s.media_id LIMIT $3`,
        [models, afterId, limit],
      );
      return rows.map((r) => r.media_id);
    },
    async waitingCounts(organizationId) {
      const from = `FROM media_stages s JOIN media m ON m.id = s.media_id
        WHERE s.state = 'waiting' AND s.model IS NOT NULL AND m.organization_id = $1
          AND m.status = 'active' AND m.is_current`;
      const perModel = await db.many<{ model: string; items: string }>(
        `SELECT s.model, COUNT(DISTINCT s.media_id) AS items ${from} GROUP BY s.model`,
        [organizationId],
      );
      const perStage = await db.many<{ model: string; stage: string; items: string }>(
        `SELECT s.model, s.stage, COUNT(*) AS items ${from} GROUP BY s.model, s.stage`,
        [organizationId],
      );
      return waitingCountsOf(perModel, perStage);
    },
  };
}
