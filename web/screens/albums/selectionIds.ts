/**
 * A browse selection as a list of ids, for the album and share link APIs (which take at most
 * ALBUM_BATCH_MAX ids): "all N matching" is listed page by page through GET /api/dataset/:id/media.
 */
import { api } from '../../lib/api';
import type { BulkTarget } from '../browse/selection';

/** The server's ALBUM_BATCH_MAX: most ids an album or a selection link takes in one request. */
export const SELECTION_IDS_MAX = 1000;
const PAGE = 1000;

export const tooManyMessage = (count: number) =>
  `${count.toLocaleString()} items are selected: at most ${SELECTION_IDS_MAX.toLocaleString()} ` +
  'can be added or shared at once. Select fewer.';

export async function selectionIds(target: BulkTarget): Promise<string[]> {
  if ('ids' in target) {
    if (target.ids.length > SELECTION_IDS_MAX) throw new Error(tooManyMessage(target.ids.length));
    return target.ids;
  }
  const { datasetId, query } = target.selection;
  const exclude = new Set(target.exclude);
  const ids: string[] = [];
  for (let offset = 0; ; offset += PAGE) {
    const page = await api<{ media: Array<{ id: string }>; pagination: { total: number } }>(
      'GET',
      `/api/dataset/${encodeURIComponent(datasetId)}/media`,
      { query: { ...query, offset, limit: PAGE } },
    );
    if (offset === 0 && page.pagination.total - exclude.size > SELECTION_IDS_MAX)
      throw new Error(tooManyMessage(page.pagination.total - exclude.size));
    for (const m of page.media) if (!exclude.has(m.id)) ids.push(m.id);
    if (ids.length > SELECTION_IDS_MAX) throw new Error(tooManyMessage(ids.length));
    if (page.media.length < PAGE) return ids;
  }
}
