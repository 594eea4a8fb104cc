/**
 * The timeline's geometry: one block per month (its header, then a block per day of the items loaded so far,
 * then placeholder rows for the rest of its count), square tiles, as many columns as fit. A month not yet
 * loaded is sized from its count alone, so the whole scroll space is known from the buckets.
 */
import { dayOf, type Bucket, type TimelineItem } from './timelineApi';

export const MONTH_HEAD = 44;
export const DAY_HEAD = 30;
export const TILE_GAP = 4;
const MIN_TILE = 150;
const MIN_TILE_COMPACT = 96;
const COMPACT_WIDTH = 600;
/** Bottom margin of a month block. */
const MONTH_GAP = 16;

export interface DayBlock {
  day: string;
  /** Offset inside the month block. */
  top: number;
  height: number;
  /** Index of the day's first item in the month's loaded items. */
  start: number;
  count: number;
}

export interface MonthBlock {
  month: string;
  count: number;
  top: number;
  height: number;
  days: DayBlock[];
  /** Where the placeholder rows of the items not loaded yet begin (offset inside the block), and how many rows. */
  restTop: number;
  restRows: number;
}

export interface Layout {
  columns: number;
  /** Tile edge (px) and row pitch. */
  tile: number;
  row: number;
  months: MonthBlock[];
  height: number;
}

export function columnsFor(width: number): { columns: number; tile: number } {
  const min = width < COMPACT_WIDTH ? MIN_TILE_COMPACT : MIN_TILE;
  const columns = Math.max(2, Math.floor((width + TILE_GAP) / (min + TILE_GAP)));
  return { columns, tile: Math.max(1, Math.floor((width - TILE_GAP * (columns - 1)) / columns)) };
}

/** Consecutive items of one UTC day (the items come newest first). */
function dayRuns(items: TimelineItem[]): Array<{ day: string; start: number; count: number }> {
  const runs: Array<{ day: string; start: number; count: number }> = [];
  items.forEach((item, i) => {
    const day = dayOf(item);
    const last = runs[runs.length - 1];
    if (last && last.day === day) last.count++;
    else runs.push({ day, start: i, count: 1 });
  });
  return runs;
}

export function layout(buckets: Bucket[], loaded: (month: string) => TimelineItem[], width: number): Layout {
  const { columns, tile } = columnsFor(width);
  const row = tile + TILE_GAP;
  const months: MonthBlock[] = [];
  let top = 0;
  for (const b of buckets) {
    const items = loaded(b.month).slice(0, b.count);
    let at = MONTH_HEAD;
    const days: DayBlock[] = [];
    for (const run of dayRuns(items)) {
      const height = DAY_HEAD + Math.ceil(run.count / columns) * row;
      days.push({ ...run, top: at, height });
      at += height;
    }
    const rest = b.count - items.length;
    // Before its items arrive a month shows one day header's room and its rows: close to its final height.
    const restTop = at + (items.length === 0 ? DAY_HEAD : 0);
    const restRows = rest > 0 ? Math.ceil(rest / columns) : 0;
    const height = restTop + restRows * row + MONTH_GAP;
    months.push({ month: b.month, count: b.count, top, height, days, restTop, restRows });
    top += height;
  }
  return { columns, tile, row, months, height: top };
}

/** The index of the month block at a content offset (the last one starting at or above it). */
export function monthAt(l: Layout, offset: number): number {
  let lo = 0;
  let hi = l.months.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (l.months[mid].top <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

const MONTH_NAME = new Intl.DateTimeFormat(undefined, { month: 'long', year: 'numeric', timeZone: 'UTC' });
const SHORT_MONTH = new Intl.DateTimeFormat(undefined, { month: 'short', timeZone: 'UTC' });
const DAY_NAME = new Intl.DateTimeFormat(undefined, {
  weekday: 'short',
  day: 'numeric',
  month: 'long',
  timeZone: 'UTC',
});

/** "March 2019". */
export const monthLabel = (month: string): string => MONTH_NAME.format(new Date(`${month}-01T00:00:00Z`));
/** "Mar". */
export const shortMonth = (month: string): string => SHORT_MONTH.format(new Date(`${month}-01T00:00:00Z`));
/** "Sat, 2 March". */
export const dayLabel = (day: string): string => DAY_NAME.format(new Date(`${day}T00:00:00Z`));
