/**
 * An item's analysis stages (table media_stages, migration 010): which ran,
 * which wait for a model that is not installed, which are off.
 */
import type { AnalysisStore } from '../storage.js';
import type { StageRecord } from '../types.js';
import type { Db } from './database.js';

/** Matches the ids of the one parameter, a JSON array. */
const IN_IDS = `IN (SELECT value FROM json_each(?))`;

interface StageRow {
  media_id: string;
  stage: string;
  state: StageRecord['state'];
  model: string | null;
}

export function analysisStages(db: Db): Pick<AnalysisStore, 'setStages' | 'stagesOf' | 'waitingFor'> {
  const clear = db.prepare(`DELETE FROM media_stages WHERE media_id = ?`);
  const insert = db.prepare(
    `INSERT INTO media_stages (media_id, stage, state, model, updated_at) VALUES (?, ?, ?, ?, ?)`,
  );
  const setStages = db.transaction((mediaId: string, stages: StageRecord[]) => {
    const at = new Date().toISOString();
    clear.run(mediaId);
    for (const s of stages) insert.run(mediaId, s.stage, s.state, s.model, at);
  });
  const read = db.prepare(`SELECT media_id, stage, state, model FROM media_stages WHERE media_id ${IN_IDS}`);
  const waiting = db.prepare(
    `SELECT DISTINCT s.media_id FROM media_stages s JOIN media m ON m.id = s.media_id
     WHERE s.state = 'waiting' AND s.model ${IN_IDS} AND s.media_id > ?
       AND m.status = 'active' AND m.processing_status = 'ready'
     ORDER BY s.media_id LIMIT ?`,
  );

  return {
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
