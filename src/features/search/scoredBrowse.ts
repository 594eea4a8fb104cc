import type { Services } from '../kernel/services.js';
import type { BrowseQuery, MediaRecord, SortField } from '../../storage/types.js';
import { presentMany } from '../kernel/present.js';
import { round4 } from './ranking.js';
import { scoreFrames, type SearchDeps } from './scoring.js';
import type { SimilarityModel } from '../../storage/types.js';

/** Most items a filter may let through before scored search gives up restricting by id (the filters still apply after). */
const FILTER_CAP = 200_000;

export interface ScoredParams {
  q?: string;
  similarToObjectId?: string;
  similarToObjectModel?: SimilarityModel;
  /** Search by example: an image's embedding under the model whose vectors cover the collection. */
  similarToVector?: { modelId: string; vector: Float32Array };
  minScore: number;
  /** Set when the client asked for an order: items above minScore come back in it instead of by score. */
  explicitSort: SortField | null;
}

const SORT_KEY: Record<SortField, (m: MediaRecord) => string> = {
  createdAt: (m) => m.createdAt,
  name: (m) => m.name.toLowerCase(),
  type: (m) => m.type,
  description: (m) => (typeof m.metadata.description === 'string' ? m.metadata.description : ''),
  prompt: (m) => (typeof m.metadata.prompt === 'string' ? m.metadata.prompt : ''),
  takenAt: (m) => m.takenAt ?? m.createdAt,
};

/** One entry of `_matchingFrames`: a frame that matched, its score and the evidence behind it. */
export interface MatchingFrame {
  id: string;
  /** Combined relevance, 0..1. */
  score: number;
  /** The text part (captions, OCR, names, tags) and the visual part (embedding similarity), 0..1 each. */
  textRank: number;
  embeddingRank: number;
  /** The region (detected object) whose embedding matched best; null when only text matched. */
  objectId: string | null;
}

/**
 * The scored mode of GET /api/dataset/{id}/media (`q`, `similarToObjectId`):
 * the browse filters decide which items may match, the query scores their
 * frames, items rank by their best frame (`_score`) and list the frames that
 * matched (`_matchingFrames`, best first). Pagination as in browse.
 */
export async function scoredBrowse(
  deps: SearchDeps & Pick<Services, 'urls'>,
  organizationId: string,
  scope: BrowseQuery,
  filtered: boolean,
  params: ScoredParams,
) {
  const mediaIds = filtered ? await deps.storage.media.browseIds(scope, FILTER_CAP) : null;
  const frames = await scoreFrames(deps, {
    q: params.q,
    similarToObjectId: params.similarToObjectId,
    similarToObjectModel: params.similarToObjectModel,
    similarToVector: params.similarToVector,
    collectionIds: [scope.collectionId],
    mediaIds,
    organizationId,
  });
  const perItem = new Map<string, { score: number; frames: MatchingFrame[] }>();
  for (const f of frames) {
    if (f.total < params.minScore) continue;
    const item = perItem.get(f.mediaId) ?? { score: 0, frames: [] };
    item.score = Math.max(item.score, f.total);
    if (f.frameId)
      item.frames.push({
        id: f.frameId,
        score: round4(f.total),
        textRank: round4(f.textRank),
        embeddingRank: round4(f.embeddingRank),
        objectId: f.objectId,
      });
    perItem.set(f.mediaId, item);
  }
  const allowed = mediaIds ? new Set(mediaIds) : null;
  // The flags are checked on the items read (the id list of the filters is asked only for the other filters).
  const archived = scope.archived ?? 'exclude';
  const records = (await deps.storage.media.getMany([...perItem.keys()])).filter(
    (m) =>
      m.status === 'active' &&
      m.isCurrent &&
      m.collectionId === scope.collectionId &&
      (!allowed || allowed.has(m.id)) &&
      (scope.favorite !== true || m.favorite) &&
      (archived === 'include' || (archived === 'only' ? m.archived : !m.archived)),
  );
  const dir = scope.sortDirection === 'asc' ? 1 : -1;
  if (params.explicitSort) {
    const key = SORT_KEY[params.explicitSort];
    records.sort((a, b) => (key(a) < key(b) ? -dir : key(a) > key(b) ? dir : a.id < b.id ? -dir : dir));
  } else {
    records.sort((a, b) => perItem.get(b.id)!.score - perItem.get(a.id)!.score || (a.id < b.id ? -1 : 1));
  }
  const page = records.slice(scope.offset, scope.offset + scope.limit);
  const presented = await presentMany(deps, page);
  return {
    media: presented.map((m) => {
      const shown = new Map(m.frames.map((f) => [f.id, f]));
      return {
        ...m,
        _score: round4(perItem.get(m.id)!.score),
        // Each matching frame with its thumbnails, so a result grid shows the frame that matched.
        _matchingFrames: perItem.get(m.id)!.frames.map((f) => ({
          ...f,
          thumbnailUrl: shown.get(f.id)?.thumbnailUrl ?? null,
          previewUrl: shown.get(f.id)?.previewUrl ?? null,
        })),
      };
    }),
    pagination: {
      total: records.length,
      limit: scope.limit,
      offset: scope.offset,
      hasMore: scope.offset + page.length < records.length,
    },
  };
}
