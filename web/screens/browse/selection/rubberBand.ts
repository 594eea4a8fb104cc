/**
 * Drag-select: a press on the grid that moves more than a few pixels draws a band; the tiles it touches are
 * selected (Shift or Ctrl/Cmd: added to the selection) and the click that ends the drag opens nothing.
 * Held near the grid's top or bottom edge, the band scrolls the grid (faster nearer the edge) and grows with it.
 * The band is kept in content coordinates and its tiles are found from the grid's geometry, not from the DOM:
 * the grid is virtualised, so tiles that scrolled out of view (no longer rendered) stay selected and tiles
 * that scroll in join as they are reached.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { contentTop, ROW_HEIGHT, type Geometry } from '../gridLayout';
import { selectIndices } from './selection';

const THRESHOLD = 6;
/** How near the top or bottom edge (px) the pointer starts the autoscroll. */
export const EDGE_PX = 48;
/** The fastest autoscroll, in px a frame (with the pointer at or past the edge). */
const MAX_STEP_PX = 24;

export interface Band {
  left: number;
  top: number;
  width: number;
  height: number;
}

/** What the band needs of the grid now: its geometry, the viewport's height and the number of items. */
export interface GridNow {
  g: Geometry;
  height: number;
  total: number;
}

/** The columns' horizontal extents and the rows' top inset, measured on the rendered tiles. */
function measure(el: HTMLElement, columns: number, top: number, box: DOMRect) {
  const cols: Array<[number, number]> = [];
  let inset = 0;
  let tileHeight = ROW_HEIGHT;
  for (const tile of el.querySelectorAll<HTMLElement>('[data-index]')) {
    const i = Number(tile.dataset.index);
    const t = tile.getBoundingClientRect();
    const c = i % columns;
    if (!cols[c]) cols[c] = [t.left - box.left, t.right - box.left];
    inset = t.top - box.top + top - Math.floor(i / columns) * ROW_HEIGHT;
    tileHeight = t.height;
  }
  return { cols, inset, tileHeight };
}

/** Indices of the tiles a band (x relative to the scroller, y in content coordinates) touches. */
function hits(el: HTMLElement, now: GridNow, box: DOMRect, x: [number, number], y: [number, number]): number[] {
  const { g, total } = now;
  const { cols, inset, tileHeight } = measure(el, g.columns, contentTop(g, el.scrollTop, now.height), box);
  const out: number[] = [];
  const firstRow = Math.max(0, Math.floor((y[0] - inset - tileHeight) / ROW_HEIGHT));
  const lastRow = Math.min(g.rows - 1, Math.floor((y[1] - inset) / ROW_HEIGHT));
  for (let r = firstRow; r <= lastRow; r++) {
    const rowTop = r * ROW_HEIGHT + inset;
    if (rowTop > y[1] || rowTop + tileHeight < y[0]) continue;
    for (let c = 0; c < g.columns; c++) {
      const span = cols[c];
      const i = r * g.columns + c;
      if (span && span[1] >= x[0] && span[0] <= x[1] && i < total) out.push(i);
    }
  }
  return out;
}

export function useRubberBand(scroller: { current: HTMLDivElement | null }, grid: { current: GridNow }) {
  const [band, setBand] = useState<Band | null>(null);
  const dragged = useRef(false);
  useEffect(() => {
    const el = scroller.current;
    if (!el) return;
    /** The press: x relative to the scroller, y in content coordinates. */
    let start: { x: number; y: number; additive: boolean } | null = null;
    let pointer = { x: 0, y: 0 };
    let frame = 0;
    const ctop = () => contentTop(grid.current.g, el.scrollTop, grid.current.height);

    const update = () => {
      if (!start || !dragged.current) return;
      const box = el.getBoundingClientRect();
      const top = ctop();
      const px = pointer.x - box.left;
      const py = Math.min(Math.max(pointer.y - box.top, 0), box.height) + top;
      const x: [number, number] = [Math.min(start.x, px), Math.max(start.x, px)];
      const y: [number, number] = [Math.min(start.y, py), Math.max(start.y, py)];
      // Drawn clamped to the viewport (the content may be far taller than the scroll space).
      const shownTop = Math.max(y[0] - top, 0);
      const shownBottom = Math.min(y[1] - top, box.height);
      setBand({
        left: x[0],
        top: shownTop + el.scrollTop,
        width: x[1] - x[0],
        height: Math.max(0, shownBottom - shownTop),
      });
      selectIndices(hits(el, grid.current, box, x, y), start.additive);
    };

    /** While dragging near an edge: scroll a step, grow the band, and go on next frame. */
    const tick = () => {
      frame = 0;
      if (!start || !dragged.current) return;
      const box = el.getBoundingClientRect();
      const above = box.top + EDGE_PX - pointer.y;
      const below = pointer.y - (box.bottom - EDGE_PX);
      const step =
        above > 0
          ? -Math.min(MAX_STEP_PX, Math.ceil((above / EDGE_PX) * MAX_STEP_PX))
          : below > 0
            ? Math.min(MAX_STEP_PX, Math.ceil((below / EDGE_PX) * MAX_STEP_PX))
            : 0;
      if (step === 0) return;
      const before = el.scrollTop;
      el.scrollTop = before + step;
      if (el.scrollTop !== before) update();
      frame = requestAnimationFrame(tick);
    };

    const onDown = (e: PointerEvent) => {
      if (e.button !== 0 || e.pointerType === 'touch') return;
      const box = el.getBoundingClientRect();
      start = {
        x: e.clientX - box.left,
        y: e.clientY - box.top + ctop(),
        additive: e.shiftKey || e.ctrlKey || e.metaKey,
      };
      pointer = { x: e.clientX, y: e.clientY };
      dragged.current = false;
    };
    const onMove = (e: PointerEvent) => {
      if (!start) return;
      const box = el.getBoundingClientRect();
      const moved = Math.hypot(e.clientX - box.left - start.x, e.clientY - box.top + ctop() - start.y);
      if (!dragged.current && moved < THRESHOLD) return;
      dragged.current = true;
      e.preventDefault();
      pointer = { x: e.clientX, y: e.clientY };
      update();
      if (!frame) frame = requestAnimationFrame(tick);
    };
    const onUp = () => {
      start = null;
      cancelAnimationFrame(frame);
      frame = 0;
      setBand(null);
    };
    // The click after a drag opens nothing.
    const onClick = (e: MouseEvent) => {
      if (!dragged.current) return;
      dragged.current = false;
      e.preventDefault();
      e.stopPropagation();
    };
    // A wheel turned while dragging grows the band too.
    const onScroll = () => update();
    el.addEventListener('pointerdown', onDown);
    window.addEventListener('pointermove', onMove);
    window.addEventListener('pointerup', onUp);
    el.addEventListener('click', onClick, true);
    el.addEventListener('scroll', onScroll, { passive: true });
    return () => {
      el.removeEventListener('pointerdown', onDown);
      window.removeEventListener('pointermove', onMove);
      window.removeEventListener('pointerup', onUp);
      el.removeEventListener('click', onClick, true);
      el.removeEventListener('scroll', onScroll);
      cancelAnimationFrame(frame);
    };
  }, []);
  return band;
}
