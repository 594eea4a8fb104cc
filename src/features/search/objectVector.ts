import type { Services } from '../kernel/services.js';
import type { ObjectRecord, SimilarityModel } from '../../storage/types.js';

/**
 * The vector `similarToObjectId` searches with: the object's stored one under
 * the similarity model, or, for a crop that was stored without one (text
 * regions under INGEST_TEXT_VECTORS=on-demand, crops made while no embedder
 * was installed), its crop embedded now with the default embedder and stored
 * beside the others, so the next search reads it. Null when there is none to
 * be had (a face model's vector is never made here; no crop; no embedder).
 */
export async function vectorOfObject(
  deps: Pick<Services, 'storage' | 'blobs' | 'models'>,
  object: ObjectRecord,
  similarityModel: SimilarityModel,
): Promise<{ modelId: string; vector: Float32Array } | null> {
  const stored = await deps.storage.analysis.objectVector(object.id, similarityModel);
  if (stored || similarityModel !== 'objects' || object.type === 'face' || !object.blobKey) return stored;
  const info = deps.models.modelInfo();
  if (!info.installed || !(await deps.blobs.exists(object.blobKey))) return null;
  const [vector] = await deps.models.embedImages(info.name, [await deps.blobs.readBuffer(object.blobKey)]);
  await deps.storage.analysis.addEmbeddings([{ objectId: object.id, modelId: info.id, similarityModel, vector }]);
  return { modelId: info.id, vector };
}
