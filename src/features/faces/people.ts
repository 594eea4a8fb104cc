/**
 * People: a person's edits of the face clusters of a collection (the People screens of the web app): name,
 * hide, cover face, merge, move faces out. Reading needs the viewer role, writing member. A cluster of
 * another organization answers 404, as one that does not exist. Every edit is kept by the store so that the
 * background clusterer never undoes it (src/index/faces/types.ts, ClusterStore).
 */
import type { ClusterSummary } from '../../index/faces/types.js';
import { invalid, notFound } from '../../platform/errors.js';
import type { Role } from '../../storage/types.js';
import { requireInOrganization, requireRole } from '../kernel/access.js';
import type { Principal, Services } from '../kernel/services.js';

export type PeopleDeps = Pick<Services, 'storage' | 'urls'>;

/** Most faces or clusters one request may name. */
export const MAX_PEOPLE_IDS = 500;

const CLUSTER_ID = /^[0-9a-f]{32}$/i;

/** A cluster as the API shows it. */
export function presentCluster(deps: Pick<Services, 'urls'>, c: ClusterSummary) {
  return {
    id: c.id,
    name: c.name,
    hidden: c.hidden,
    size: c.size,
    mediaCount: c.mediaCount,
    model: c.modelId,
    preview: c.previewBlobKey ? deps.urls.urlFor(c.previewBlobKey) : null,
    previewObjectId: c.previewObjectId,
    previewMediaId: c.previewMediaId,
    coverObjectId: c.coverObjectId,
    createdAt: c.createdAt,
    updatedAt: c.updatedAt,
  };
}

/** A cluster of the caller's organization, with its collection id; 404 otherwise; then the role. */
export async function loadCluster(
  deps: Pick<Services, 'storage'>,
  principal: Principal,
  rawId: string,
  need: Role,
): Promise<ClusterSummary & { collectionId: string }> {
  const cluster = CLUSTER_ID.test(rawId) ? await deps.storage.clusters.getCluster(rawId.toLowerCase()) : null;
  const collection = cluster ? await deps.storage.collections.get(cluster.collectionId) : null;
  requireInOrganization(principal, collection, 'person not found');
  requireRole(principal, need);
  return cluster!;
}

/** GET /api/clusters/{id}. */
export async function getPerson(deps: PeopleDeps, principal: Principal, id: string) {
  const cluster = await loadCluster(deps, principal, id, 'viewer');
  return { cluster: { ...presentCluster(deps, cluster), datasetId: cluster.collectionId } };
}

/** A person's name as stored: trimmed, inner runs of spaces made one; empty clears it. */
function cleanName(name: string | null): string | null {
  if (name === null) return null;
  const clean = name.normalize('NFC').replace(/\s+/g, ' ').trim();
  if (clean.length > 100) throw invalid('a name has at most 100 characters');
  return clean === '' ? null : clean;
}

/** PATCH /api/clusters/{id}: rename (null or "" clears), hide or show, choose the cover face (one of its own). */
export async function updatePerson(
  deps: PeopleDeps,
  principal: Principal,
  id: string,
  patch: { name?: string | null; hidden?: boolean; coverObjectId?: string | null },
) {
  const cluster = await loadCluster(deps, principal, id, 'member');
  if (patch.name === undefined && patch.hidden === undefined && patch.coverObjectId === undefined)
    throw invalid('nothing to change: give name, hidden or coverObjectId');
  if (patch.coverObjectId) {
    const of = await deps.storage.clusters.clusterOfObject(patch.coverObjectId.toLowerCase());
    if (of !== cluster.id) throw invalid('the cover face is not one of this person’s faces');
  }
  await deps.storage.clusters.updateCluster(cluster.id, {
    ...(patch.name !== undefined ? { name: cleanName(patch.name) } : {}),
    ...(patch.hidden !== undefined ? { hidden: patch.hidden } : {}),
    ...(patch.coverObjectId !== undefined ? { coverObjectId: patch.coverObjectId?.toLowerCase() ?? null } : {}),
  });
  return getPerson(deps, principal, cluster.id);
}

/** Clusters that must sit beside `target`: the caller's, in its collection, under its model. */
async function siblings(
  deps: PeopleDeps,
  principal: Principal,
  target: ClusterSummary & { collectionId: string },
  ids: string[],
) {
  const out: string[] = [];
  for (const raw of new Set(ids.map((id) => id.toLowerCase()))) {
    if (raw === target.id) continue;
    const c = await loadCluster(deps, principal, raw, 'member');
    if (c.collectionId !== target.collectionId) throw notFound('person not found');
    if (c.modelId !== target.modelId)
      throw invalid('these faces were found by different face models and cannot be one person');
    out.push(c.id);
  }
  return out;
}

/** POST /api/clusters/{id}/merge: the named clusters become this one (faces, items, the first name if it has none). */
export async function mergePeople(deps: PeopleDeps, principal: Principal, id: string, clusterIds: string[]) {
  const target = await loadCluster(deps, principal, id, 'member');
  const from = await siblings(deps, principal, target, clusterIds);
  if (from.length === 0) throw invalid('name at least one other person to merge into this one');
  const merged = await deps.storage.clusters.mergeClusters(target.id, from);
  return { cluster: { ...presentCluster(deps, merged), datasetId: target.collectionId }, merged: from };
}

/**
 * POST /api/clusters/{id}/faces/move: faces of this cluster go to another person (`to`) or to a new one
 * (`to` null: "not this person"). Every face must be one of this cluster's.
 */
export async function moveFaces(
  deps: PeopleDeps,
  principal: Principal,
  id: string,
  body: { objectIds: string[]; to: string | null },
) {
  const source = await loadCluster(deps, principal, id, 'member');
  const to = body.to === null ? null : ((await siblings(deps, principal, source, [body.to]))[0] ?? null);
  if (body.to !== null && to === null) throw invalid('the faces are already in this person');
  const objectIds = [...new Set(body.objectIds.map((o) => o.toLowerCase()))];
  for (const objectId of objectIds) {
    if ((await deps.storage.clusters.clusterOfObject(objectId)) !== source.id)
      throw invalid(`face ${objectId} is not one of this person’s faces`);
  }
  const r = await deps.storage.clusters.moveFaces(source.id, objectIds, to);
  const remaining = await deps.storage.clusters.getCluster(source.id);
  return { clusterId: r.clusterId, moved: r.moved, sourceRemains: remaining !== null };
}

/** GET /api/clusters/{id}/faces: the cluster's faces (crops), most typical first. */
export async function listFaces(
  deps: PeopleDeps,
  principal: Principal,
  id: string,
  page: { limit: number; offset: number },
) {
  const cluster = await loadCluster(deps, principal, id, 'viewer');
  const faces = await deps.storage.clusters.clusterFaces(cluster.id, page);
  return {
    faces: faces.map((f) => ({
      objectId: f.objectId,
      mediaId: f.mediaId,
      crop: f.blobKey ? deps.urls.urlFor(f.blobKey) : null,
      manual: f.manual,
    })),
    pagination: {
      total: cluster.size,
      limit: page.limit,
      offset: page.offset,
      hasMore: page.offset + faces.length < cluster.size,
    },
  };
}
