/**
 * Search by example: the items of a collection most like an image the client sends (a data URI of a dropped
 * or pasted file, or an image URL as the AI routes take), ranked as `similarToObjectId` ranks, with every
 * browse filter. The image is embedded in memory by the model worker pool (off the event loop) and never
 * stored: no blob, no record, no file.
 */
import { loadAiImage } from '../ai/index.js';
import { searchModel, type SearchDeps } from '../search/index.js';
import { loadCollection } from '../kernel/access.js';
import type { Principal, Services } from '../kernel/services.js';
import { browse, type BrowseParams } from './browse.js';

export type SearchByImageDeps = SearchDeps & Pick<Services, 'urls' | 'config' | 'outputs'>;

export async function searchByImage(
  deps: SearchByImageDeps,
  principal: Principal,
  collectionId: string,
  params: Omit<BrowseParams, 'q' | 'similarToObjectId' | 'similarToObjectModel' | 'similarToVector'> & {
    image: string;
  },
) {
  const collection = await loadCollection(deps, principal, collectionId, 'viewer');
  const { image, ...browseParams } = params;
  const loaded = await loadAiImage(deps, image);
  const model = await searchModel(deps, [collection.id]);
  const [vector] = await deps.models.embedImages(model.name, [loaded.buffer]);
  return browse(deps, principal, collectionId, { ...browseParams, similarToVector: { modelId: model.id, vector } });
}
