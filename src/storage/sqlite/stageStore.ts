/**
 * An item's analysis stages (table media_stages, migration 010): which ran,
 * which wait for a model that is not installed, which are off.
 */
import type { EventWriter } from '../eventWriter.js';
import type { AnalysisStore } from '../storage.js';
import type { WaitingCount } from '../stageCounts.js';
import type { StageRecord } from '../types.js';
import type { Db } from './database.js';
import { mediaEvent } from './eventLog.js';
import type { MediaRow } from './rows.js';

/** Matches the ids of the one parameter, a JSON array. */
const IN_IDS = `IN (SELECT value FROM json_each(?))`;

interface StageRow {
  media_id: string;
  stage: string;
  state: StageRecord['state'];
  model: string | null;
}

/** The waiting stages as events name them, in stage order (the PostgreSQL stages use it too). */
export const waitingOf = (stages: StageRecord[]) =>
  stages
    .filter((s) => s.state === 'waiting')
    .map((s) => ({ stage: s.stage, model: s.model }))
    .sort((a, b) => (a.stage < b.stage ? -1 : a.stage > b.stage ? 1 : 0));

/** The two counts' rows as WaitingCounts by model name (the PostgreSQL stages use it too). */
export function waitingCountsOf(
  perModel: Array<{ model: string; items: number | string }>,
  perStage: Array<{ model: string; stage: string; items: number | string }>,
): WaitingCount[] {
  const out = perModel.map((r) => ({ model: r.model, items: Number(r.items), stages: {} as Record<string, number> }));
  const byModel = new Map(out.map((w) => [w.model, w]));
  for (const r of perStage) {
    const w = byModel.get(r.model);
    if (w) w.stages[r.stage] = Number(r.items);
  }
  return out.sort((a, b) => (a.model < b.model ? -1 : a.model > b.model ? 1 : 0));
}

export function analysisStages(
  db: Db,
  events: EventWriter,
): Pick<AnalysisStore, 'setStages' | 'stagesOf' | 'waitingFor' | 'waitingCounts'> {
  const clear = db.prepare(`DELETE FROM media_stages WHERE media_id = ?`);
  const insert = db.prepare(
    `INSERT INTO media_stages (media_id, stage, state, model, updated_at) VALUES (?, ?, ?, ?, ?)`,
  );
  const current = db.prepare(`SELECT stage, state, model FROM media_stages WHERE media_id = ?`);
  const readyRow = db.prepare(`SELECT * FROM media WHERE id = ? AND status = 'active' AND processing_status = 'ready'`);
  const setStages = db.transaction((mediaId: string, stages: StageRecord[]) => {
    const at = new Date().toISOString();
    const before = JSON.stringify(waitingOf(current.all(mediaId) as StageRecord[]));
    clear.run(mediaId);
    for (const s of stages) insert.run(mediaId, s.stage, s.state, s.model, at);
    // During an ingest the item is `processing` and its `ready` event names the waiting stages; a catch-up
    // changes them while the item stays `ready`: that change is an event of its own.
    const waiting = waitingOf(stages);
    const item = readyRow.get(mediaId) as MediaRow | undefined;
    if (item && JSON.stringify(waiting) !== before) events.append(mediaEvent('media.status', item, { waiting }));
  });
  const read = db.prepare(`SELECT media_id, stage, state, model FROM media_stages WHERE media_id ${IN_IDS}`);
  const waiting = db.prepare(
    `SELECT DISTINCT s.media_id FROM media_stages s JOIN media m ON m.id = s.media_id
     WHERE s.state = 'waiting' AND s.model ${IN_IDS} AND s.media_id > ?
       AND m.status = 'active' AND m.processing_status = 'ready'
     ORDER BY s.media_id LIMIT ?`,
  );

  const counts = db.prepare(
    `SELECT s.model, s.stage, COUNT(*) AS items FROM media_stages s
     JOIN media m ON m.id = s.media_id
     WHERE s.state = 'waiting' AND s.model IS NOT NULL AND m.organization_id = ?
       AND m.status = 'active' AND m.is_current = 1
     GROUP BY s.model, s.stage`,
  );
  const distinct = db.prepare(
    `SELECT s.model, COUNT(DISTINCT s.media_id) AS items FROM media_stages s
     JOIN media m ON m.id = s.media_id
     WHERE s.state = 'waiting' AND s.model IS NOT NULL AND m.organization_id = ?
       AND m.status = 'active' AND m.is_current = 1
     GROUP BY s.model`,
  );

  return {
    waitingCounts: async (organizationId) =>
      waitingCountsOf(
        distinct.all(organizationId) as Array<{ model: string; items: number }>,
        counts.all(organizationId) as Array<{ model: string; stage: string; items: number }>,
      ),
    setStages: async (mediaId, stages) => setStages(mediaId, stages),
    stagesOf: async (mediaIds) => {
      const out = new Map<string, StageRecord[]>();
      if (mediaIds.length === 0) return out;
      for (const r of read.all(JSON.stringify(mediaIds)) as StageRow[]) {
        let list = out.get(r.media_id);
        if (!list) out.set(r.media_id, (list = []));
        list.push({ stage: r.stage, state: r.state, model: r.model });
      }
      return out;
    },
    waitingFor: async (models, limit, afterId = '') =>
      models.length === 0 ? [] : (waiting.pluck().all(JSON.stringify(models), afterId, limit) as string[]),
  };
}
