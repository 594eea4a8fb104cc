import type { BrowseQuery } from './types.js';

/**
 * The filters of a BrowseQuery, each set to "none": spread it into a listing that narrows by nothing but its
 * scope (collection, path, recursive), and put any filter it does use after the spread.
 */
export const NO_FILTERS = {
  types: null,
  createdFrom: null,
  createdBefore: null,
  tagFilters: null,
  tagValues: null,
  mediaId: null,
  clusterId: null,
} as const satisfies Partial<BrowseQuery>;
