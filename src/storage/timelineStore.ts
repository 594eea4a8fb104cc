import type { BrowseQuery } from './types.js';

/** Live items of one month of capture time (`YYYY-MM`, UTC; the upload time where the capture time is unknown). */
export interface MonthBucket {
  month: string;
  count: number;
}

/** The timeline's reads (features/library/timeline.ts): how many items each month holds. */
export interface TimelineStore {
  /**
   * The items a browse query lists (place, types, tags, flags, album, cluster, dates; its sort and page are
   * ignored), counted per month of `media_scope.taken_at` (the capture time, else createdAt), newest month first;
   * months without items are left out.
   */
  months(query: BrowseQuery): Promise<MonthBucket[]>;
}

// Storage.timeline is declared here, beside its interface (storage.ts is at the 400-line limit): both engines'
// stores (sqlite/index.ts, postgres/index.ts) provide it.
declare module './storage.js' {
  interface Storage {
    /** Month buckets of the capture time (GET /api/dataset/:id/timeline). */
    timeline: TimelineStore;
  }
}
