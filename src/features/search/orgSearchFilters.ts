import { invalid } from '../../platform/errors.js';
import type { MediaSummary } from '../../storage/types.js';

/** The optional narrowing and ordering of GET /api/search (the collection search's browse filters, where they apply org-wide). */
export interface OrgSearchFilters {
  /** Frames scoring below this are left out (0..1; default 0: every frame that scored). */
  minScore: number;
  /** `rank` (default): best first; `createdAt`: the page of best matches, ordered by the item's date. */
  sortBy: 'rank' | 'createdAt';
  sortDirection: 'asc' | 'desc';
  type: 'image' | 'video' | 'all';
  /** YYYY-MM-DD, inclusive (createdAt, UTC). */
  dateFrom?: string;
  dateTo?: string;
  /** true: favourites only (ours, as browse's `favorite`). */
  favorite?: boolean;
  /** Archived items: left out (default), listed too, or alone (ours, as browse's `archived`). */
  archived?: 'exclude' | 'include' | 'only';
}

/** Whether an item's archived flag lets it through (`exclude`, the default, leaves archived items out). */
export const archivedAllows = (mode: OrgSearchFilters['archived'], m: { archived: boolean }): boolean =>
  mode === 'include' || (mode === 'only' ? m.archived : !m.archived);

/** Midnight UTC of a YYYY-MM-DD day (400 for anything else). */
function day(value: string, field: string): number {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  const d = m ? new Date(Date.UTC(+m[1], +m[2] - 1, +m[3])) : null;
  if (!m || !d || d.getUTCMonth() !== +m[2] - 1 || d.getUTCDate() !== +m[3])
    throw invalid(`${field} must be a date as YYYY-MM-DD`);
  return d.getTime();
}

/**
 * A predicate for the items the type, date and flag filters let through; null when none is set (archived items
 * left out, the default, are dropped with the items found not live, without reading every hit's item).
 */
export function itemFilter(f: Partial<OrgSearchFilters>): ((m: MediaSummary) => boolean) | null {
  const from = f.dateFrom ? new Date(day(f.dateFrom, 'dateFrom')).toISOString() : null;
  const before = f.dateTo ? new Date(day(f.dateTo, 'dateTo') + 86_400_000).toISOString() : null;
  if (from && before && from >= before) throw invalid('dateFrom must not be after dateTo');
  const type = f.type && f.type !== 'all' ? f.type : null;
  const favorite = f.favorite === true;
  const only = f.archived === 'only';
  if (!from && !before && !type && !favorite && !only) return null;
  return (m) =>
    (!type || m.type === type) &&
    (!from || m.createdAt >= from) &&
    (!before || m.createdAt < before) &&
    (!favorite || m.favorite) &&
    (!only || m.archived);
}
