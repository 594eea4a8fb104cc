import type { Services, Principal } from '../kernel/services.js';
import { invalid } from '../../platform/errors.js';
import { loadOrganizationId } from '../kernel/access.js';
import { presentFrame } from '../kernel/present.js';
import { round4 } from './ranking.js';
import { scoreFrames, type FrameScore, type SearchDeps } from './scoring.js';
import type { FrameDetail, MediaSummary } from '../../storage/types.js';
import { archivedAllows, itemFilter, type OrgSearchFilters } from './orgSearchFilters.js';
import { toPlaceFilter, type PlaceParams } from '../kernel/placeParams.js';

/**
 * GET /api/search: frame-level results across every collection of the
 * organization, shaped as the spec's SearchResult, ordered by rank. The
 * optional filters (minScore, type, dates) narrow the hits before the page is
 * chosen; sortBy=createdAt orders the page (the best `limit` matches) by date.
 */
export async function searchOrganization(
  deps: SearchDeps & Pick<Services, 'urls'>,
  principal: Principal,
  input: { q: string; organizationId: string; limit: number } & Partial<OrgSearchFilters> & PlaceParams,
) {
  const q = input.q.trim();
  if (!q) throw invalid('q is required');
  const places = toPlaceFilter(input);
  const orgId = await loadOrganizationId(deps, principal, input.organizationId);
  const collectionIds = (await deps.storage.collections.list(orgId)).map((c) => c.id);
  const keep = itemFilter(input);
  const scored = await scoreFrames(deps, {
    q,
    collectionIds,
    mediaIds: null,
    organizationId: orgId,
    // With a type or date filter many hits may drop, so every hit is fetched (as scored browse does).
    want: keep || places ? undefined : input.limit,
  });
  // Hits that scored nothing (below every calibration floor) are never shown: their items are not read.
  const minScore = input.minScore ?? 0;
  let positive = scored.filter((f) => f.total > 0 && f.total >= minScore);
  if (keep) {
    const allowed = new Set(
      (await deps.storage.media.summaries([...new Set(positive.map((f) => f.mediaId))])).filter(keep).map((m) => m.id),
    );
    positive = positive.filter((f) => allowed.has(f.mediaId));
  }
  if (places) {
    const allowed = new Set(await deps.storage.places.matching([...new Set(positive.map((f) => f.mediaId))], places));
    positive = positive.filter((f) => allowed.has(f.mediaId));
  }
  const { results, media, dead } = await readPage(deps, positive, input.limit, input.archived);
  const page = results.slice(0, input.limit);
  if (input.sortBy === 'createdAt') {
    const dir = input.sortDirection === 'asc' ? 1 : -1;
    const at = (r: (typeof page)[number]) => media.get(r.f.mediaId)!.createdAt;
    page.sort((a, b) => (at(a) < at(b) ? -dir : at(a) > at(b) ? dir : b.f.total - a.f.total));
  }
  return {
    results: page.map(({ f, frame }) => presentResult(deps.urls, f, frame, media.get(f.mediaId)!)),
    query: q,
    limit: input.limit,
    totalResults: Math.max(results.length, countFrames(positive, results, dead)),
  };
}

/**
 * Frames found among the hits fetched (see hitsFor), each once, less those of items found not live (the
 * index drops deleted items and old versions as they change, so hits past the page are taken as live).
 * Frame-level: object hits count as their frame, and an item-level text hit (name, description, tags) stands
 * for the item's first frame: counted on its own for an item none of whose frames scored, or when the page
 * read it and found a frame that did not score; otherwise taken as one of the scored frames (an image's one).
 */
function countFrames(positive: FrameScore[], shown: Array<{ f: FrameScore; frame: FrameDetail }>, dead: Set<string>) {
  const scored = new Set(positive.flatMap((f) => (f.frameId === null ? [] : [f.frameId])));
  const withFrames = new Set(positive.filter((f) => f.frameId !== null).map((f) => f.mediaId));
  const frames = new Set<string>();
  for (const f of positive) if (f.frameId !== null || !withFrames.has(f.mediaId)) frames.add(f.frameId ?? f.mediaId);
  let n = shown.filter(
    ({ f, frame }) => f.frameId === null && withFrames.has(f.mediaId) && !scored.has(frame.id),
  ).length;
  for (const k of frames) if (!dead.has(k)) n++;
  return n;
}

/**
 * The page, best first: items and frame details are read only for the candidates it needs. Each batch
 * reads as many candidates as results are still missing (in a library bigger than the OS keeps cached,
 * each item read is a disk read). Only live items count (deleted items and old versions are dropped); an
 * item-level text match stands for the item's first frame; a frame is shown once. Which frames a page
 * shows does not depend on the batch size (each candidate needs only its own item).
 */
async function readPage(
  deps: Pick<Services, 'storage'>,
  positive: FrameScore[],
  limit: number,
  archived: OrgSearchFilters['archived'],
) {
  const media = new Map<string, MediaSummary>();
  const results: Array<{ f: FrameScore; frame: FrameDetail }> = [];
  const seen = new Set<string>();
  const dead = new Set<string>();
  let from = 0;
  while (results.length < limit && from < positive.length) {
    const batch = positive.slice(from, from + limit - results.length);
    from += batch.length;
    for (const m of await deps.storage.media.summaries([
      ...new Set(batch.map((f) => f.mediaId).filter((id) => !media.has(id))),
    ]))
      media.set(m.id, m);
    const live = batch.filter((f) => {
      const m = media.get(f.mediaId);
      const ok = !!m && m.status === 'active' && m.isCurrent && archivedAllows(archived, m);
      if (!ok) dead.add(f.frameId ?? f.mediaId);
      return ok;
    });
    if (live.length === 0) continue;
    // Only the frames shown are read (not every frame of a long video).
    const frames = await deps.storage.media.pickFrames(live.map((f) => ({ mediaId: f.mediaId, frameId: f.frameId })));
    for (const [i, f] of live.entries()) {
      const frame = frames[i];
      if (!frame || seen.has(frame.id)) continue;
      seen.add(frame.id);
      results.push({ f, frame });
    }
  }
  return { results, media, dead };
}

/** One result as the spec's SearchResult. */
function presentResult(urls: Services['urls'], f: FrameScore, frame: FrameDetail, item: MediaSummary) {
  const shown = presentFrame(urls, frame);
  return {
    id: frame.id,
    timestamp: frame.timestamp,
    blob: shown.blob,
    thumbnailUrl: shown.thumbnailUrl,
    previewUrl: shown.previewUrl,
    width: frame.width,
    height: frame.height,
    media: {
      id: item.id,
      name: item.name,
      type: item.type,
      blob: item.blobKey ? urls.urlFor(item.blobKey, item.name) : '',
      width: item.width,
      height: item.height,
      duration: item.duration,
      createdAt: item.createdAt,
      datasetId: item.collectionId,
    },
    captions: shown.captions.map((c) => ({ id: c.id, text: c.text })),
    objects: shown.objects,
    rank: round4(f.total),
    matchedObjectId: f.objectId,
    rankingMetrics: {
      textRank: round4(f.textRank),
      objectEmbeddingRank: round4(f.embeddingRank),
      totalRank: round4(f.total),
    },
  };
}
