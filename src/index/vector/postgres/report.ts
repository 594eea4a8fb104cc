/**
 * What the pgvector index tells about itself: per-model stats, coverage of collections, models with stored
 * embeddings but no index, and warming (pg_prewarm when the server has it).
 */
import type { PgRunner } from '../../../platform/pgDb.js';
import type { SimilarityModel, VectorCoverage, VectorIndexStats } from '../types.js';

/** HNSW build parameters (pgvector's defaults, which vector_model_ensure and rebuild use). */
export const HNSW_PARAMS = 'hnsw m=16 ef_construction=64, halfvec_cosine_ops';

interface StatsRow {
  model_id: string;
  dims: number;
  state: 'live' | 'building';
  rows: number;
  valid: boolean | null;
}

/** VectorIndex.stats: one row per model (pgvector rebuilds in place: there is no second generation to list). */
export async function statsAll(db: PgRunner, modelId?: string): Promise<VectorIndexStats[]> {
  const rows = await db.many<StatsRow>(
    `SELECT m.model_id, m.dims, m.state, i.indisvalid AS valid,
            (SELECT count(*) FROM vector_entries v WHERE v.model_id = m.model_id) AS rows
     FROM vector_models m LEFT JOIN pg_index i ON i.indexrelid = to_regclass(m.index_name)
     WHERE $1::text IS NULL OR m.model_id = $1 ORDER BY m.model_id`,
    [modelId ?? null],
  );
  return rows.map((r) => ({
    modelId: r.model_id,
    dims: r.dims,
    sourceDtype: 'float32',
    indexDtype: 'halfvec',
    rerankDtype: 'float32',
    quantizer: HNSW_PARAMS,
    centered: false,
    state: r.state,
    rows: r.rows,
    // No vec0 slots here: deleted rows are dead tuples VACUUM (or a rebuild's REINDEX) reclaims.
    slots: r.rows,
    reclaimable: 0,
    // A live model whose index is missing or was left invalid (a failed concurrent build) answers exactly.
    needsRebuild: r.state === 'live' && r.valid !== true,
    cachedRows: 0,
    lists: 0,
    unlistedRows: 0,
  }));
}

/** VectorIndex.coverage: entries of current items against the active objects of active current items. */
export async function coverage(
  db: PgRunner,
  enabled: boolean,
  modelId: string,
  collectionIds: string[],
  sm?: SimilarityModel,
): Promise<VectorCoverage> {
  const ids = [...new Set(collectionIds)];
  const params = sm ? [ids, sm] : [ids];
  const objects = (await db.one<{ n: number }>(
    `SELECT count(*) AS n FROM media m JOIN detected_objects o ON o.media_id = m.id
     WHERE m.dataset_id = ANY($1::text[]) AND m.status = 'active' AND m.is_current
       AND o.status = 'active' AND ${sm ? 'o.similarity_model = $2' : 'o.similarity_model IS NOT NULL'}`,
    params,
  ))!.n;
  let indexed = 0;
  let live = false;
  if (enabled) {
    const row = await db.one<{ state: string; n: number }>(
      `SELECT m.state, (SELECT count(*) FROM vector_entries v JOIN media i ON i.id = v.media_id AND i.is_current
                        WHERE v.model_id = m.model_id AND v.dataset_id = ANY($1::text[])
                          ${sm ? 'AND v.similarity_model = $3' : ''}) AS n
       FROM vector_models m WHERE m.model_id = $2`,
      sm ? [ids, modelId, sm] : [ids, modelId],
    );
    indexed = row?.n ?? 0;
    live = row?.state === 'live';
  }
  return { modelId, indexed, objects, fraction: objects === 0 ? 1 : Math.min(1, indexed / objects), live };
}

/** VectorIndex.unindexedModels: the distinct models of object_embeddings (a skip scan of its model index) unregistered. */
export async function unindexedModels(db: PgRunner): Promise<string[]> {
  const rows = await db.many<{ model_id: string }>(
    `WITH RECURSIVE models(model_id) AS (
       (SELECT model_id FROM object_embeddings ORDER BY model_id LIMIT 1)
       UNION ALL
       SELECT (SELECT e.model_id FROM object_embeddings e WHERE e.model_id > models.model_id ORDER BY e.model_id LIMIT 1)
       FROM models WHERE models.model_id IS NOT NULL
     )
     SELECT model_id FROM models
     WHERE model_id IS NOT NULL AND model_id NOT IN (SELECT model_id FROM vector_models) ORDER BY model_id`,
  );
  return rows.map((r) => r.model_id);
}

/** VectorIndex.warm: loads the models' HNSW indexes into shared buffers with pg_prewarm, when installed. */
export async function warm(db: PgRunner, modelId?: string): Promise<{ rows: number }> {
  const has = await db.one(`SELECT 1 FROM pg_extension WHERE extname = 'pg_prewarm'`);
  if (!has) return { rows: 0 };
  const row = await db.one<{ n: number }>(
    `SELECT coalesce(sum((SELECT count(*) FROM vector_entries v WHERE v.model_id = m.model_id)), 0) AS n
     FROM vector_models m, LATERAL (SELECT pg_prewarm(to_regclass(m.index_name))) w
     WHERE m.state = 'live' AND ($1::text IS NULL OR m.model_id = $1)`,
    [modelId ?? null],
  );
  return { rows: row?.n ?? 0 };
}
