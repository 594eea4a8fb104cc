import type { PostgresStorage } from '../postgres/index.js';

/**
 * After a transfer: the embeddings arrived with the vector index's triggers off (transfer.ts), so each
 * model's index is built once now, from all its rows, instead of grown one row at a time.
 */
export async function buildTransferredVectors(
  pg: PostgresStorage,
  onProgress?: (model: string, done: number, total: number) => void,
): Promise<void> {
  if (!pg.vectorSearch) return;
  const models = await pg.db.many<{ model_id: string; n: number }>(
    `SELECT model_id, count(*) AS n FROM object_embeddings GROUP BY model_id ORDER BY model_id`,
  );
  for (const { model_id: model, n } of models)
    await pg.indexes.vectors.rebuild(model, { onProgress: (done) => onProgress?.(model, done, n) });
}
