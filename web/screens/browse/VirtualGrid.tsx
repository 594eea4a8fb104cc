/**
 * The browse grid, virtualised: only the rows in view (plus a little overscan) exist in the DOM, so 100,000
 * items cost as much as 50; the scroll space is capped (gridLayout.ts explains the scaling); pages of items
 * are asked for shortly after scrolling stops over them (PageCache), placeholders stand in meanwhile.
 * Keyboard: one tile is in the Tab order (roving tabindex); arrows, Home/End, PageUp/PageDown move; Enter opens.
 */
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { contentTop, geometry, ROW_HEIGHT, scrollTopFor, visibleRows, rowOffset, type Geometry } from './gridLayout';
import { nextIndex } from './gridKeys';
import { useLongPressSelects, useTileLongPress } from './longPress';
import type { PageCache } from './pageCache';
import { Tile } from './Tile';
import { gridSelectionKey } from './selection/keys';
import { useRubberBand } from './selection/rubberBand';
import { isSelected, isSelecting, selection } from './selection/selection';
import type { MediaItem } from './browseApi';

/** Scrolling must pause this long over a place before its pages are requested. */
const FETCH_DELAY_MS = 60;

export interface VirtualGridProps {
  cache: PageCache;
  label: string;
  hrefOf: (item: MediaItem, index: number) => string;
  onOpen: (event: MouseEvent, href: string, index: number) => void;
}

/** The scroller's size and scroll position, kept in state (scroll events coalesced to one per frame). */
function useViewport(scroller: { current: HTMLDivElement | null }) {
  const [size, setSize] = useState({ width: 0, height: 0 });
  const [scrollTop, setScrollTop] = useState(0);
  useLayoutEffect(() => {
    const el = scroller.current;
    if (!el) return;
    const observer = new ResizeObserver(() => setSize({ width: el.clientWidth, height: el.clientHeight }));
    observer.observe(el);
    let frame = 0;
    const onScroll = () => {
      if (!frame)
        frame = requestAnimationFrame(() => {
          frame = 0;
          setScrollTop(el.scrollTop);
        });
    };
    el.addEventListener('scroll', onScroll, { passive: true });
    return () => {
      observer.disconnect();
      el.removeEventListener('scroll', onScroll);
      cancelAnimationFrame(frame);
    };
  }, []);
  return { size, scrollTop, setScrollTop };
}

/** Asks the cache for the items of the rendered rows once scrolling pauses over them. */
function useFetchVisible(cache: PageCache, g: Geometry, first: number, last: number) {
  useEffect(() => {
    const timer = setTimeout(() => cache.want(first * g.columns, (last + 1) * g.columns - 1), FETCH_DELAY_MS);
    return () => clearTimeout(timer);
  }, [cache, first, last, g.columns]);
}

export function VirtualGrid({ cache, label, hrefOf, onOpen }: VirtualGridProps) {
  const scroller = useRef<HTMLDivElement>(null);
  const { size, scrollTop, setScrollTop } = useViewport(scroller);
  useTileLongPress(scroller); // a finger held on a tile fires `tile-longpress` (longPress.ts): selection mode's way in
  useLongPressSelects(scroller);
  const [focused, setFocused] = useState(0);
  const wantFocus = useRef(false);
  void cache.version.value; // re-render when pages arrive
  const total = cache.total.value ?? 0;
  const g = geometry(total, size.width);
  const { first, last } = visibleRows(g, scrollTop, size.height);
  useFetchVisible(cache, g, first, last);

  const focusRow = Math.floor(focused / g.columns);
  const firstInView = Math.min(total - 1, Math.ceil(contentTop(g, scrollTop, size.height) / ROW_HEIGHT) * g.columns);
  const tabStop = focused < total && focusRow >= first && focusRow <= last ? focused : Math.max(0, firstInView);

  useLayoutEffect(() => {
    if (!wantFocus.current) return;
    wantFocus.current = false;
    scroller.current?.querySelector<HTMLElement>(`[data-index="${focused}"]`)?.focus({ preventScroll: true });
  });

  /** Scrolls so the row of `index` is fully in view. */
  const reveal = (index: number) => {
    const el = scroller.current;
    if (!el) return;
    const top = Math.floor(index / g.columns) * ROW_HEIGHT;
    const viewTop = contentTop(g, el.scrollTop, size.height);
    let next: number | null = null;
    if (top < viewTop) next = scrollTopFor(g, top, size.height);
    else if (top + ROW_HEIGHT > viewTop + size.height)
      next = scrollTopFor(g, top + ROW_HEIGHT - size.height, size.height);
    if (next === null) return;
    el.scrollTop = next;
    setScrollTop(el.scrollTop);
  };

  const onKeyDown = (e: KeyboardEvent) => {
    const from = Number((e.target as HTMLElement).closest('[data-index]')?.getAttribute('data-index'));
    if (!Number.isFinite(from) || e.altKey) return;
    if (gridSelectionKey(e, from)) return e.preventDefault();
    if (e.metaKey) return;
    const pageRows = Math.max(1, Math.floor(size.height / ROW_HEIGHT));
    const to = nextIndex(e.key, from, { columns: g.columns, total, pageRows, ctrl: e.ctrlKey });
    if (to === null) return;
    e.preventDefault();
    if (e.shiftKey) gridSelectionKey(e, from, to);
    reveal(to);
    wantFocus.current = true;
    setFocused(to);
  };

  const onFocusIn = (e: FocusEvent) => {
    const at = Number((e.target as HTMLElement).getAttribute('data-index'));
    if (Number.isFinite(at) && at !== focused) setFocused(at);
  };

  const gridNow = useRef({ g, height: size.height, total });
  gridNow.current = { g, height: size.height, total };
  const band = useRubberBand(scroller, gridNow);
  const chosen = selection.value;
  const rows = [];
  for (let r = first; r <= last && total > 0; r++) {
    const cells = [];
    for (let c = 0; c < g.columns; c++) {
      const index = r * g.columns + c;
      if (index >= total) break;
      const item = cache.item(index);
      cells.push(
        <Tile
          key={index}
          index={index}
          item={item}
          href={item ? hrefOf(item, index) : ''}
          tabStop={index === tabStop}
          selected={isSelected(index, chosen)}
          style={{ gridColumn: String(c + 1) }}
          onOpen={onOpen}
        />,
      );
    }
    rows.push(
      <div
        key={r}
        role="row"
        aria-rowindex={r + 1}
        class="grid-row"
        style={{
          transform: `translateY(${rowOffset(g, r, scrollTop, size.height)}px)`,
          gridTemplateColumns: `repeat(${g.columns}, minmax(0, 1fr))`,
        }}
      >
        {cells}
      </div>,
    );
  }

  return (
    <div ref={scroller} class={isSelecting.value ? 'grid-scroller selecting' : 'grid-scroller'}>
      {band ? (
        <div
          class="rubber-band"
          style={{
            ...band,
            left: `${band.left}px`,
            top: `${band.top}px`,
            width: `${band.width}px`,
            height: `${band.height}px`,
          }}
        />
      ) : null}
      <div
        role="grid"
        aria-label={label}
        aria-multiselectable="true"
        aria-rowcount={g.rows}
        aria-colcount={g.columns}
        class="grid-space"
        style={{ height: `${g.scrollHeight}px` }}
        onKeyDown={onKeyDown}
        onFocusIn={onFocusIn}
      >
        {rows}
      </div>
    </div>
  );
}
