/**
 * One search hit, whichever endpoint found it: a frame of an item, its score split into the text part
 * (captions, OCR, names, tags) and the visual part (embedding similarity), and the region that matched.
 */
import type { Frame, OrgSearchResult, Region, ScoredItem } from '../viewer/types';

export interface SearchHit {
  mediaId: string;
  mediaName: string;
  mediaType: 'image' | 'video' | 'folder';
  createdAt: string;
  frame: Pick<Frame, 'id' | 'timestamp' | 'blob' | 'thumbnailUrl' | 'width' | 'height' | 'captions' | 'objects'>;
  score: number;
  /** null when the endpoint did not say (an item matched by its name or tags only). */
  textRank: number | null;
  visualRank: number | null;
  /** The region whose embedding matched (null: none, e.g. a text-only match). */
  matchedObjectId: string | null;
}

/** Hits of scored browse: each item's best matching frame (its first frame for an item-level text match). */
export function hitsOfItems(items: ScoredItem[]): SearchHit[] {
  return items.flatMap((m) => {
    const best = m._matchingFrames[0];
    const frame = (best && m.frames.find((f) => f.id === best.id)) || m.frames[0];
    if (!frame) return [];
    return [
      {
        mediaId: m.id,
        mediaName: m.name,
        mediaType: m.type,
        createdAt: m.createdAt,
        frame,
        score: best?.score ?? m._score,
        textRank: best?.textRank ?? null,
        visualRank: best?.embeddingRank ?? null,
        matchedObjectId: best?.objectId ?? null,
      },
    ];
  });
}

/** Hits of organization search (already frame-level). */
export function hitsOfResults(results: OrgSearchResult[]): SearchHit[] {
  return results.map((r) => ({
    mediaId: r.media.id,
    mediaName: r.media.name,
    mediaType: r.media.type,
    createdAt: r.media.createdAt,
    frame: r,
    score: r.rank,
    textRank: r.rankingMetrics.textRank,
    visualRank: r.rankingMetrics.objectEmbeddingRank,
    matchedObjectId: r.matchedObjectId ?? null,
  }));
}

/** The regions to outline on a hit's tile: the matched region, else the text lines that hold a query word. */
export function outlinedRegions(hit: SearchHit, isMatchingText: (text: string) => boolean): Region[] {
  const objects = hit.frame.objects;
  const matched = objects.find((o) => o.id === hit.matchedObjectId);
  const words = objects.filter((o) => o.type === 'text' && isMatchingText(o.label));
  if (matched) return [matched, ...words.filter((o) => o.id !== matched.id)];
  return words;
}
