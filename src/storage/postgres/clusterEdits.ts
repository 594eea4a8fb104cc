/**
 * A person's edits of face clusters on PostgreSQL (the People screens, src/features/faces/people.ts): name,
 * hide, cover, merge, move faces. Each is one transaction under the group's advisory lock (clusterRefresh.ts),
 * the lock the background assignment takes (clusterStore.ts), so the two take turns; rows are locked in the
 * triggers' order (clusters by id, then members). Every edit pins the clusters it touches (062_people.sql),
 * which the clusterer honours; a person's name reaches the text index through that migration's triggers.
 * The touched clusters are marked dirty and recomputed from their members in the same transaction.
 * SQLite: src/storage/sqlite/clusterEdits.ts.
 */
import type { AssignResult, ClusterStore, ClusterSummary } from '../../index/faces/types.js';
import { vectorToBlob } from '../../index/faces/vectorBlob.js';
import { newMediaId } from '../../platform/ids.js';
import type { PgDb, PgRunner } from '../../platform/pgDb.js';
import type { ClusterEditNames } from './clusterReads.js';
import { lockGroup, refreshDirty } from './clusterRefresh.js';

interface ClusterHead {
  id: string;
  dataset_id: string;
  model_id: string;
  dims: number;
  name: string | null;
}

const head = (tx: PgRunner, id: string) =>
  tx.one<ClusterHead>(`SELECT id, dataset_id, model_id, dims, name FROM clusters WHERE id = $1`, [id]);

/** The group's lock, then its clusters `ids` locked in id order; their heads (those that exist). */
async function lockClusters(db: PgDb, tx: PgRunner, ids: string[]): Promise<ClusterHead[]> {
  const first = await head(tx, ids[0]);
  if (!first) return [];
  await lockGroup(tx, db.schema, first);
  return tx.many<ClusterHead>(
    `SELECT id, dataset_id, model_id, dims, name FROM clusters WHERE id = ANY ($1) ORDER BY id FOR UPDATE`,
    [ids],
  );
}

/** Recomputes the touched clusters of the group (dropped when empty) and pins them. */
async function recompute(tx: PgRunner, group: ClusterHead, ids: string[]): Promise<void> {
  await tx.query(`UPDATE clusters SET dirty = true, pinned = true WHERE id = ANY ($1)`, [ids]);
  const result: AssignResult = {
    assigned: 0,
    created: 0,
    merged: 0,
    skipped: 0,
    refreshed: 0,
    dropped: 0,
    more: false,
  };
  await refreshDirty(tx, group, result);
}

export function pgClusterEdits(db: PgDb, getCluster: ClusterStore['getCluster']): Pick<ClusterStore, ClusterEditNames> {
  return {
    async updateCluster(id, patch) {
      const sets = ['pinned = true', 'updated_at = $2'];
      const params: unknown[] = [id, new Date().toISOString()];
      const set = (column: string, value: unknown) => {
        params.push(value);
        sets.push(`${column} = $${params.length}`);
      };
      if (patch.name !== undefined) set('name', patch.name);
      if (patch.hidden !== undefined) set('hidden', patch.hidden);
      if (patch.coverObjectId !== undefined) set('cover_object_id', patch.coverObjectId);
      const r = await db.query(`UPDATE clusters SET ${sets.join(', ')} WHERE id = $1`, params);
      return (r.rowCount ?? 0) > 0;
    },

    async mergeClusters(into, from) {
      await db.tx(async (tx) => {
        const ids = [into, ...from.filter((id) => id !== into)];
        const heads = await lockClusters(db, tx, ids);
        const target = heads.find((c) => c.id === into);
        if (!target) return;
        const sources = ids.slice(1).flatMap((id) => heads.filter((c) => c.id === id));
        const name = target.name ?? sources.find((c) => c.name !== null)?.name ?? null;
        if (name !== target.name) await tx.query(`UPDATE clusters SET name = $1 WHERE id = $2`, [name, into]);
        const gone = sources.map((c) => c.id);
        await tx.query(`UPDATE cluster_members SET cluster_id = $1 WHERE cluster_id = ANY ($2)`, [into, gone]);
        await tx.query(`UPDATE cluster_pins SET cluster_id = $1 WHERE cluster_id = ANY ($2)`, [into, gone]);
        await tx.query(`DELETE FROM clusters WHERE id = ANY ($1)`, [gone]);
        await recompute(tx, target, [into]);
      });
      return (await getCluster(into)) as ClusterSummary;
    },

    async moveFaces(from, objectIds, to) {
      return db.tx(async (tx) => {
        const heads = await lockClusters(db, tx, to ? [from, to] : [from]);
        const source = heads.find((c) => c.id === from);
        if (!source) return { clusterId: to ?? '', moved: 0 };
        const target = to ?? newMediaId();
        if (to === null) {
          const at = new Date().toISOString();
          const zero = vectorToBlob(new Float32Array(source.dims));
          await tx.query(
            `INSERT INTO clusters (id, dataset_id, model_id, similarity_model, dims, centroid, vector_sum, size, pinned,
               created_at, updated_at) VALUES ($1, $2, $3, 'faces', $4, $5, $5, 0, true, $6, $6)`,
            [target, source.dataset_id, source.model_id, source.dims, zero, at],
          );
        }
        const moved = await tx.query(
          `UPDATE cluster_members SET cluster_id = $1 WHERE cluster_id = $2 AND object_id = ANY ($3)`,
          [target, from, objectIds],
        );
        await tx.query(
          `INSERT INTO cluster_pins (object_id, model_id, cluster_id)
           SELECT object_id, model_id, cluster_id FROM cluster_members WHERE cluster_id = $1 AND object_id = ANY ($2)
           ON CONFLICT (object_id, model_id) DO UPDATE SET cluster_id = excluded.cluster_id`,
          [target, objectIds],
        );
        await recompute(tx, source, [from, target]);
        const n = moved.rowCount ?? 0;
        return { clusterId: n > 0 ? target : (to ?? ''), moved: n };
      });
    },
  };
}
