/**
 * A person's edits of face clusters in SQLite (the People screens, src/features/faces/people.ts): name, hide,
 * cover, merge, move faces. Each is one IMMEDIATE write transaction, so it takes turns with the background
 * assignment (clusterStore.ts) on SQLite's write lock. Every edit pins the clusters it touches
 * (migrations/029_people.sql), which the clusterer honours; the text index rows of a person's name follow
 * through that migration's triggers. PostgreSQL: src/storage/postgres/clusterEdits.ts.
 */
import type { ClusterStore, ClusterSummary } from '../../index/faces/types.js';
import { vectorFromBlob, vectorToBlob } from '../../index/faces/vectorBlob.js';
import { summarise } from '../../index/faces/vectorMath.js';
import { newMediaId } from '../../platform/ids.js';
import type { ClusterEditNames } from './clusterReads.js';
import type { Db } from './database.js';

const now = () => new Date().toISOString();

interface ClusterHead {
  id: string;
  dataset_id: string;
  model_id: string;
  dims: number;
  name: string | null;
}

/** The statements the edits share: a cluster's head, and its recomputation from its members. */
function editHelpers(db: Db) {
  const head = db.prepare(`SELECT id, dataset_id, model_id, dims, name FROM clusters WHERE id = ?`);
  const members = db.prepare(
    `SELECT cm.object_id, e.vector FROM cluster_members cm
       JOIN object_embeddings e ON e.object_id = cm.object_id AND e.model_id = cm.model_id
      WHERE cm.cluster_id = ?`,
  );

  /** Recomputes a cluster from its members (pinned), or deletes it when none are left. */
  const recompute = (id: string, dims: number) => {
    const list = (members.all(id) as Array<{ object_id: string; vector: Buffer }>).map((r) => ({
      objectId: r.object_id,
      vector: vectorFromBlob(r.vector),
    }));
    if (list.length === 0) {
      db.prepare(`DELETE FROM cluster_members WHERE cluster_id = ?`).run(id);
      db.prepare(`DELETE FROM clusters WHERE id = ?`).run(id);
      return;
    }
    const s = summarise(list, dims);
    db.prepare(
      `UPDATE clusters SET centroid = ?, vector_sum = ?, size = ?, preview_object_id = ?, preview_similarity = ?,
         dirty = 0, pinned = 1, updated_at = ? WHERE id = ?`,
    ).run(vectorToBlob(s.centroid), vectorToBlob(s.sum), s.size, s.previewObjectId, s.previewSimilarity, now(), id);
  };
  return { head, recompute };
}

export function clusterEdits(db: Db, getCluster: ClusterStore['getCluster']): Pick<ClusterStore, ClusterEditNames> {
  const helpers = editHelpers(db);
  const { head } = helpers;

  const update = db.transaction((id: string, patch: Parameters<ClusterStore['updateCluster']>[1]) => {
    if (!head.get(id)) return false;
    const sets = ['pinned = 1', 'updated_at = @at'];
    if (patch.name !== undefined) sets.push('name = @name');
    if (patch.hidden !== undefined) sets.push('hidden = @hidden');
    if (patch.coverObjectId !== undefined) sets.push('cover_object_id = @cover');
    db.prepare(`UPDATE clusters SET ${sets.join(', ')} WHERE id = @id`).run({
      id,
      at: now(),
      name: patch.name ?? null,
      hidden: patch.hidden ? 1 : 0,
      cover: patch.coverObjectId ?? null,
    });
    return true;
  });

  const merge = mergeTransaction(db, helpers);
  const move = moveTransaction(db, helpers);

  return {
    async updateCluster(id, patch) {
      return update.immediate(id, patch);
    },
    async mergeClusters(into, from) {
      merge.immediate(into, from);
      return (await getCluster(into)) as ClusterSummary;
    },
    async moveFaces(from, objectIds, to) {
      return move.immediate(from, objectIds, to);
    },
  };
}

type Helpers = ReturnType<typeof editHelpers>;

/** Merges clusters into one (see ClusterStore.mergeClusters), one transaction. */
function mergeTransaction(db: Db, { head, recompute }: Helpers) {
  return db.transaction((into: string, from: string[]) => {
    const target = head.get(into) as ClusterHead | undefined;
    if (!target) return;
    const sources = from
      .filter((id) => id !== into)
      .map((id) => head.get(id) as ClusterHead | undefined)
      .filter((c): c is ClusterHead => c !== undefined);
    const name = target.name ?? sources.find((c) => c.name !== null)?.name ?? null;
    if (name !== target.name) db.prepare(`UPDATE clusters SET name = ? WHERE id = ?`).run(name, into);
    const ids = JSON.stringify(sources.map((c) => c.id));
    db.prepare(`UPDATE cluster_members SET cluster_id = ? WHERE cluster_id IN (SELECT value FROM json_each(?))`).run(
      into,
      ids,
    );
    db.prepare(`UPDATE cluster_pins SET cluster_id = ? WHERE cluster_id IN (SELECT value FROM json_each(?))`).run(
      into,
      ids,
    );
    db.prepare(`DELETE FROM clusters WHERE id IN (SELECT value FROM json_each(?))`).run(ids);
    recompute(into, target.dims);
  });
}

/** Moves faces out of a cluster (see ClusterStore.moveFaces), one transaction. */
function moveTransaction(db: Db, { head, recompute }: Helpers) {
  return db.transaction((from: string, objectIds: string[], to: string | null) => {
    const source = head.get(from) as ClusterHead | undefined;
    if (!source) return { clusterId: to ?? '', moved: 0 };
    const target = to ?? newMediaId();
    if (to === null) {
      const at = now();
      const zero = vectorToBlob(new Float32Array(source.dims));
      db.prepare(
        `INSERT INTO clusters (id, dataset_id, model_id, similarity_model, dims, centroid, vector_sum, size, pinned,
           created_at, updated_at) VALUES (?, ?, ?, 'faces', ?, ?, ?, 0, 1, ?, ?)`,
      ).run(target, source.dataset_id, source.model_id, source.dims, zero, zero, at, at);
    }
    const ids = JSON.stringify(objectIds);
    const moved = db
      .prepare(
        `UPDATE cluster_members SET cluster_id = ?
          WHERE cluster_id = ? AND object_id IN (SELECT value FROM json_each(?))`,
      )
      .run(target, from, ids).changes;
    db.prepare(
      `INSERT OR REPLACE INTO cluster_pins (object_id, model_id, cluster_id)
       SELECT object_id, model_id, cluster_id FROM cluster_members
        WHERE cluster_id = ? AND object_id IN (SELECT value FROM json_each(?))`,
    ).run(target, ids);
    recompute(target, source.dims);
    recompute(from, source.dims);
    return { clusterId: moved > 0 ? target : (to ?? ''), moved };
  });
}
