/** The selection's calls to the JSON API: POST /api/media/bulk, its undo and the last action. */
import { api } from '../../../lib/api';
import { browseParams, type BrowseState } from '../browseState';
import { fetchPage, type MediaItem } from '../browseApi';
import { PAGE_SIZE, type PageCache } from '../pageCache';
import type { BulkTarget, SelectionState } from './selection';

/** Most ids one request takes (the server's limit); a bigger selection goes as "all matching". */
export const MAX_IDS = 10_000;

export interface BulkAnswer {
  actionId: string | null;
  /** false for reprocess: it cannot be undone. */
  undoable: boolean;
  operation: string;
  selected: number;
  changed: number;
  unchanged: number;
  errorCount: number;
  errors: Array<{ id: string; error: string; message: string }>;
}

export interface LastAction {
  id: string;
  operation: { type: string; [key: string]: unknown };
  changedCount: number;
  createdAt: string;
  undoneAt: string | null;
  undoable: boolean;
}

export const runBulk = (target: BulkTarget, operation: Record<string, unknown>) =>
  api<BulkAnswer>('POST', '/api/media/bulk', { body: { ...target, operation } });

export const undoBulk = (actionId: string) =>
  api<{ reverted: number }>('POST', `/api/media/bulk/${encodeURIComponent(actionId)}/undo`);

export const lastBulk = () => api<{ action: LastAction | null }>('GET', '/api/media/bulk/last');

/** The listing's query as the bulk API's selection takes it (the browse parameters, no paging). */
export function selectionQuery(state: BrowseState): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(browseParams(state))) if (v !== undefined) out[k] = v;
  return out;
}

/** The items at these indices, from the cache or fetched page by page where they are not loaded (or `fresh`). */
export async function itemsAt(
  datasetId: string,
  state: BrowseState,
  cache: PageCache,
  indices: number[],
  fresh = false,
): Promise<MediaItem[]> {
  const fetched = new Map<number, MediaItem[]>();
  const out: MediaItem[] = [];
  for (const i of indices) {
    let item = fresh ? undefined : cache.item(i);
    if (!item) {
      const page = Math.floor(i / PAGE_SIZE);
      if (!fetched.has(page)) fetched.set(page, (await fetchPage(datasetId, state, page * PAGE_SIZE, PAGE_SIZE)).media);
      item = fetched.get(page)![i % PAGE_SIZE];
    }
    if (item) out.push(item);
  }
  return out;
}

/** The selection as the bulk API takes it. */
export async function targetOf(
  datasetId: string,
  state: BrowseState,
  cache: PageCache,
  s: SelectionState,
): Promise<BulkTarget> {
  if (s.all) {
    const exclude = (await itemsAt(datasetId, state, cache, [...s.excluded])).map((m) => m.id);
    return { selection: { datasetId, query: selectionQuery(state) }, exclude };
  }
  if (s.indices.size > MAX_IDS)
    throw new Error(`More than ${MAX_IDS.toLocaleString()} items are selected: use “Select all matching” instead.`);
  const indices = [...s.indices].sort((a, b) => a - b);
  return { ids: (await itemsAt(datasetId, state, cache, indices)).map((m) => m.id) };
}

/** A sentence for an answer: what changed, and how many items could not be. */
export function describeAnswer(verb: string, a: BulkAnswer): string {
  const n = (k: number) => `${k.toLocaleString()} ${k === 1 ? 'item' : 'items'}`;
  let text = `${verb} ${n(a.changed)}`;
  if (a.unchanged) text += ` (${n(a.unchanged)} already so)`;
  if (a.errorCount) text += `; ${n(a.errorCount)} could not be changed`;
  return text + '.';
}
