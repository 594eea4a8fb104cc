/**
 * Small pieces the pgvector index's statements share: the model registry row, literals for the per-model
 * partial index's predicate, vectors as pgvector text, and the liveness rule of an entry.
 */
import type { PgRunner } from '../../../platform/pgDb.js';

/** A vector_models row: the model's dims, whether its HNSW index exists yet, and that index's name. */
export interface ModelRow {
  model_id: string;
  dims: number;
  state: 'live' | 'building';
  index_name: string;
}

export async function modelRow(db: PgRunner, modelId: string): Promise<ModelRow | null> {
  return db.one<ModelRow>(`SELECT model_id, dims, state, index_name FROM vector_models WHERE model_id = $1`, [modelId]);
}

/**
 * A model id as an SQL string literal. The planner proves that a query may use a partial index only from
 * the query's own text (`model_id = '<literal>'`), so the id is written into the statement rather than
 * bound (pgvector's README does the same); standard_conforming_strings makes doubling quotes enough.
 */
export function literal(text: string): string {
  return `'${text.replace(/'/g, "''")}'`;
}

/** A vector as pgvector's text form; every float32 prints exactly as a double and parses back to itself. */
export function vectorText(v: Float32Array): string {
  return `[${Array.from(v).join(',')}]`;
}

/** The HNSW index's expression: the halfvec copy of the entry at the model's dims. */
export const halfvecOf = (dims: number): string => `embedding::halfvec(${dims})`;

/** The CREATE INDEX of a model's HNSW index (the migration's vector_model_ensure writes the same). */
export function createIndexSql(model: ModelRow, concurrently: boolean): string {
  return (
    `CREATE INDEX ${concurrently ? 'CONCURRENTLY ' : ''}IF NOT EXISTS ${model.index_name} ON vector_entries ` +
    `USING hnsw ((${halfvecOf(model.dims)}) halfvec_cosine_ops) WHERE model_id = ${literal(model.model_id)}`
  );
}

/**
 * An object_embeddings row `e` is live (has an entry) when its object (d, if it has a detected_objects row)
 * and its item (m, if it has a media row) are active: the rule of the migration's vector_entries_refresh.
 */
export const LIVE_SOURCE = `(d.status IS NULL OR d.status = 'active') AND (m.status IS NULL OR m.status = 'active')`;
