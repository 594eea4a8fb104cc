import type { Services } from '../kernel/services.js';
import { vectorOfObject } from './objectVector.js';
import { DomainError, invalid, notFound } from '../../platform/errors.js';
import type { SimilarityModel } from '../../storage/types.js';
import { calibrate, combine } from './ranking.js';
import { requireInOrganization } from '../kernel/access.js';
import { exactRescoreFor } from '../../index/vector/tuning.js';

/** What scoring a query uses: the stored vectors and text, and the embedding models. */
export type SearchDeps = Pick<Services, 'storage' | 'indexes' | 'models' | 'blobs'>;

/**
 * Vector hits (and text hits) fetched per query: enough for deep pages of
 * scored browse and its totals (vec0's k is at most 4096).
 */
export const VECTOR_K = 1000;
export const TEXT_K = 1000;
/**
 * Hits fetched when the caller needs only the best `want` results (organization
 * search): three a result (an item's frame and its objects may each bring one),
 * at least 50. Every vector hit past the first pass costs an int8 re-rank and
 * the best an exact row read, and text hits are read back and scored one by
 * one, so a small k is several times cheaper than the full 1,000 (numbers:
 * docs/measurements/features.md).
 */
export const hitsFor = (want: number | undefined): number =>
  want === undefined ? VECTOR_K : Math.min(VECTOR_K, Math.max(50, want * 3));
const textHitsFor = (want: number | undefined): number => (want === undefined ? TEXT_K : hitsFor(want));
/**
 * Vector hits rescored from float32 when the caller shows only the best `want`
 * (organization search): about a page's worth, the rest ranked by their int8
 * similarity. Each exact rescore reads a float32 row, a disk read once the
 * library outgrows the OS cache (a few dozen are most of a large query's
 * time); ranking by int8 alone costs measurable recall (numbers:
 * docs/measurements/features.md). Scored browse keeps the default (its
 * scores are compared with minScore over every page).
 */
const exactTopFor = (want: number | undefined): number | undefined =>
  want === undefined ? undefined : exactRescoreFor(want);

/**
 * The embedding model text queries use: the current default model once its
 * vectors cover every object of these collections; until then (a re-index in
 * progress) the newest other installed embedder whose vectors do.
 * Counting coverage reads every object of the collections (slow in a big
 * library; numbers: docs/measurements/features.md), so it only runs when
 * another model's index exists, and its answer is kept for a minute per set
 * of collections.
 */
export async function searchModel(deps: SearchDeps, collectionIds: string[]) {
  const current = deps.models.modelInfo();
  const others = (await deps.indexes.vectors.stats()).filter(
    (st) => st.modelId !== current.id && st.state === 'live' && st.rows > 0,
  );
  if (others.length === 0) return current; // the usual case: one model, nothing to choose
  const key = `${current.id}|${[...collectionIds].sort().join(',')}`;
  let memos = modelMemos.get(deps.storage);
  if (!memos) modelMemos.set(deps.storage, (memos = new Map()));
  const memo = memos.get(key);
  if (memo && memo.until > Date.now()) return memo.model;
  const model = await chooseModel(
    deps,
    current,
    collectionIds,
    others.reverse().map((st) => st.modelId),
  );
  if (memos.size >= 256) memos.clear();
  memos.set(key, { model, until: Date.now() + 60_000 });
  return model;
}

type ModelInfoOf = ReturnType<Services['models']['modelInfo']>;
/** Per store (one per server; tests run several in a process). */
const modelMemos = new WeakMap<object, Map<string, { model: ModelInfoOf; until: number }>>();

async function chooseModel(
  deps: SearchDeps,
  current: ModelInfoOf,
  collectionIds: string[],
  otherIds: string[],
): Promise<ModelInfoOf> {
  const coverage = await deps.indexes.vectors.coverage(current.id, collectionIds, 'objects');
  if (coverage.fraction >= 0.999) return current;
  for (const modelId of otherIds) {
    const name = modelId.split(':')[0];
    let other;
    try {
      other = deps.models.modelInfo(name);
    } catch {
      continue; // no longer in the catalog
    }
    if (other.id !== modelId || !other.installed || other.task !== 'embed') continue;
    if ((await deps.indexes.vectors.coverage(other.id, collectionIds, 'objects')).fraction >= 0.999) return other;
  }
  return current;
}

/** One frame's evidence for a query. */
export interface FrameScore {
  frameId: string | null;
  mediaId: string;
  collectionId: string;
  textRank: number;
  embeddingRank: number;
  total: number;
  /** The object whose embedding gave embeddingRank (the region to outline); null when only text matched. */
  objectId: string | null;
}

export interface ScoreQuery {
  q?: string;
  similarToObjectId?: string;
  similarToObjectModel?: SimilarityModel;
  /** An image's embedding (search by example): scored as similarToObjectId's vector is, image to image. */
  similarToVector?: { modelId: string; vector: Float32Array };
  collectionIds: string[];
  /** Items the filters let through (null: every item of the collections). */
  mediaIds: string[] | null;
  /** The caller's organization: a similarToObjectId elsewhere is "not found". */
  organizationId: string;
  /** How many results the caller will show, when it needs only the best (sizes the fetch; see hitsFor). */
  want?: number;
}

/**
 * Scores frames for a query: text embedding against frame and object
 * embeddings, FTS over captions/OCR/names/descriptions/tags, or similarity to
 * one object's embedding; combined per src/search/ranking.ts. Returns every
 * scored frame (best first); callers group by item and apply minScore.
 */
export async function scoreFrames(deps: SearchDeps, query: ScoreQuery): Promise<FrameScore[]> {
  const byFrame = new Map<string, FrameScore>();
  const entry: EntryFor = (mediaId, frameId, collectionId) => {
    const k = `${mediaId}/${frameId ?? ''}`;
    let e = byFrame.get(k);
    if (!e)
      byFrame.set(k, (e = { frameId, mediaId, collectionId, textRank: 0, embeddingRank: 0, total: 0, objectId: null }));
    return e;
  };
  if (query.collectionIds.length === 0) return [];
  if (query.similarToObjectId) await scoreSimilarTo(deps, query, query.similarToObjectId, entry);
  if (query.similarToVector) await scoreByVector(deps, query, query.similarToVector, 'objects', entry);
  if (query.q !== undefined) await scoreText(deps, query, query.q, entry);
  return combineScores([...byFrame.values()]);
}

/** The score entry of one frame (frameId null: the item itself), made on first use. */
type EntryFor = (mediaId: string, frameId: string | null, collectionId: string) => FrameScore;

/** Embedding ranks by similarity to one object's stored vector (404 unless it is active in the caller's organization). */
async function scoreSimilarTo(deps: SearchDeps, query: ScoreQuery, objectId: string, entry: EntryFor): Promise<void> {
  const object = /^[0-9a-f]{32}$/i.test(objectId)
    ? await deps.storage.analysis.getObject(objectId.toLowerCase())
    : null;
  if (!object || object.status !== 'active') throw notFound('object not found');
  requireInOrganization(
    { organizationId: query.organizationId },
    await deps.storage.media.get(object.mediaId),
    'object not found',
  );
  const similarityModel: SimilarityModel = query.similarToObjectModel ?? (object.type === 'face' ? 'faces' : 'objects');
  const stored = await vectorOfObject(deps, object, similarityModel);
  if (!stored) throw invalid(`object ${object.id} has no embedding for the ${similarityModel} model`);
  await scoreByVector(deps, query, stored, similarityModel, entry);
}

/** Embedding ranks by similarity to a vector of a model, calibrated image to image. */
async function scoreByVector(
  deps: SearchDeps,
  query: ScoreQuery,
  stored: { modelId: string; vector: Float32Array },
  similarityModel: SimilarityModel,
  entry: EntryFor,
): Promise<void> {
  const hits = await deps.indexes.vectors.search({
    modelId: stored.modelId,
    similarityModel,
    vector: stored.vector,
    collectionIds: query.collectionIds,
    k: hitsFor(query.want),
    mediaIds: query.mediaIds,
    exactTop: exactTopFor(query.want),
  });
  // Calibrated as the model that made the vector says (a model gone from the catalog: as the role's model).
  const maker =
    deps.models.modelInfoById(stored.modelId) ??
    deps.models.modelInfo((similarityModel === 'faces' && deps.models.roles().embedFaces) || undefined);
  const calibration = maker.calibration.imageToImage;
  if (!calibration) throw invalid(`model ${maker.name} declares no image-to-image calibration`);
  for (const h of hits)
    noteVectorHit(entry(h.mediaId, h.frameId, h.collectionId), h, calibrate(h.similarity, calibration));
}

/** Embedding ranks for the query text's embedding (when the embedder is available) and text ranks from the text index. */
async function scoreText(deps: SearchDeps, query: ScoreQuery, q: string, entry: EntryFor): Promise<void> {
  const text = q.trim();
  if (!text) throw invalid('q must not be empty');
  const info = await searchModel(deps, query.collectionIds);
  let vector: Float32Array | null = null;
  try {
    [vector] = await deps.models.embedTexts(info.name, [text]);
  } catch (err) {
    // Without the embedder, text matching still answers (and says nothing about meaning).
    if (!(err instanceof DomainError && err.code === 'unavailable')) throw err;
  }
  // The text search is asked first: in a big library it runs in a worker thread (see textIndexThread.ts)
  // while the vector search below runs here.
  const textSearch = deps.indexes.text.search({
    query: text,
    collectionIds: query.collectionIds,
    mediaIds: query.mediaIds,
    limit: textHitsFor(query.want),
  });
  const [hits, textHits] = await Promise.all([
    vector
      ? deps.indexes.vectors.search({
          modelId: info.id,
          similarityModel: 'objects',
          vector,
          collectionIds: query.collectionIds,
          k: hitsFor(query.want),
          mediaIds: query.mediaIds,
          exactTop: exactTopFor(query.want),
        })
      : Promise.resolve([]),
    textSearch,
  ]);
  const calibration = info.calibration.textToImage;
  if (!calibration) throw invalid(`model ${info.name} declares no text-to-image calibration`);
  for (const h of hits)
    noteVectorHit(entry(h.mediaId, h.frameId, h.collectionId), h, calibrate(h.similarity, calibration));
  for (const t of textHits) {
    const e = entry(t.mediaId, t.frameId, t.collectionId);
    e.textRank = Math.max(e.textRank, t.score);
  }
}

/** Keeps a frame's best embedding rank and the object that gave it. */
function noteVectorHit(e: FrameScore, hit: { objectId: string }, rank: number): void {
  if (rank > e.embeddingRank || e.objectId === null) e.objectId = hit.objectId;
  e.embeddingRank = Math.max(e.embeddingRank, rank);
}

/** Totals, best first. An item-level text match (name, description, tags) counts for each of the item's scored frames too. */
function combineScores(entries: FrameScore[]): FrameScore[] {
  const itemText = new Map<string, number>();
  for (const e of entries)
    if (e.frameId === null) itemText.set(e.mediaId, Math.max(itemText.get(e.mediaId) ?? 0, e.textRank));
  for (const e of entries) {
    if (e.frameId !== null) e.textRank = Math.max(e.textRank, itemText.get(e.mediaId) ?? 0);
    e.total = combine(e.textRank, e.embeddingRank);
  }
  return entries.sort((a, b) => b.total - a.total || a.mediaId.localeCompare(b.mediaId));
}
