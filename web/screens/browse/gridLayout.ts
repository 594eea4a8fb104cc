/**
 * The grid's geometry: fixed-height rows, as many columns as fit, and a scroll space that never exceeds
 * MAX_SCROLL_PX. Browsers cap an element's height (Chromium about 16.7M px, Firefox less); a grid of
 * 1,000,000 items at 6 per row and 220 px is 36.7M px, so old items would be unreachable (Immich #16788).
 *
 * Choice: a *scaled scroll space*. Up to MAX_SCROLL_PX the spacer is the grid's real height and rows sit at
 * their real offsets (native, compositor-smooth scrolling). Beyond it the spacer is MAX_SCROLL_PX tall and
 * the scroll position maps linearly onto the real content (scrollTop 0 → first row, the end → last row); the
 * rendered rows are then placed relative to the viewport. One wheel notch moves further (factor 4.6 at 1M
 * items), the scrollbar still means "position in the list", and no paging UI is needed.
 */

/** The tallest scroll space the grid makes (well below every browser's limit). */
export const MAX_SCROLL_PX = 8_000_000;
export const ROW_HEIGHT = 232;
export const MIN_TILE_WIDTH = 176;
/** Below COMPACT_WIDTH (a phone) tiles may be this narrow, so two or more columns fit from 300 px up. */
export const MIN_TILE_WIDTH_COMPACT = 132;
export const COMPACT_WIDTH = 600;
export const GAP = 12;
/** Rows rendered above and below the viewport. */
export const OVERSCAN_ROWS = 2;

export interface Geometry {
  columns: number;
  rows: number;
  /** The content's real height. */
  contentHeight: number;
  /** The spacer's height: contentHeight, capped. */
  scrollHeight: number;
}

export function geometry(total: number, width: number): Geometry {
  const minTile = width < COMPACT_WIDTH ? MIN_TILE_WIDTH_COMPACT : MIN_TILE_WIDTH;
  const columns = Math.max(1, Math.floor((width + GAP) / (minTile + GAP)));
  const rows = Math.ceil(total / columns);
  const contentHeight = rows * ROW_HEIGHT;
  return { columns, rows, contentHeight, scrollHeight: Math.min(contentHeight, MAX_SCROLL_PX) };
}

/** The content offset shown at the top of the viewport for a scroll position. */
export function contentTop(g: Geometry, scrollTop: number, viewport: number): number {
  if (g.contentHeight <= g.scrollHeight) return scrollTop;
  const room = g.scrollHeight - viewport;
  return room <= 0 ? 0 : (Math.min(scrollTop, room) / room) * (g.contentHeight - viewport);
}

/** The scroll position that shows a content offset at the top (contentTop's inverse). */
export function scrollTopFor(g: Geometry, top: number, viewport: number): number {
  if (g.contentHeight <= g.scrollHeight) return top;
  const room = g.contentHeight - viewport;
  return room <= 0 ? 0 : (Math.min(Math.max(top, 0), room) / room) * (g.scrollHeight - viewport);
}

/** The rows to render (first..last inclusive, with overscan) for a scroll position. */
export function visibleRows(g: Geometry, scrollTop: number, viewport: number): { first: number; last: number } {
  const top = contentTop(g, scrollTop, viewport);
  const first = Math.max(0, Math.floor(top / ROW_HEIGHT) - OVERSCAN_ROWS);
  const last = Math.min(g.rows - 1, Math.floor((top + viewport) / ROW_HEIGHT) + OVERSCAN_ROWS);
  return { first, last };
}

/**
 * Where a row's top sits inside the spacer. Unscaled this is its real offset (constant: the browser scrolls
 * it); scaled it follows the scroll position so the row lands at its place in the viewport.
 */
export function rowOffset(g: Geometry, row: number, scrollTop: number, viewport: number): number {
  return row * ROW_HEIGHT - contentTop(g, scrollTop, viewport) + scrollTop;
}
