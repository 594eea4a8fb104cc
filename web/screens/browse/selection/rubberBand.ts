/**
 * Drag-select: a press on the grid that moves more than a few pixels draws a band; the tiles it touches are
 * selected (Shift or Ctrl/Cmd: added to the selection) and the click that ends the drag opens nothing.
 * Only the tiles in view can be touched (the grid is virtualised): a longer range is Shift-click's.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { selectIndices } from './selection';

const THRESHOLD = 6;

export interface Band {
  left: number;
  top: number;
  width: number;
  height: number;
}

export function useRubberBand(scroller: { current: HTMLDivElement | null }) {
  const [band, setBand] = useState<Band | null>(null);
  const dragged = useRef(false);
  useEffect(() => {
    const el = scroller.current;
    if (!el) return;
    let start: { x: number; y: number; additive: boolean } | null = null;
    const onDown = (e: PointerEvent) => {
      if (e.button !== 0 || e.pointerType === 'touch') return;
      start = { x: e.clientX, y: e.clientY, additive: e.shiftKey || e.ctrlKey || e.metaKey };
      dragged.current = false;
    };
    const onMove = (e: PointerEvent) => {
      if (!start) return;
      if (!dragged.current && Math.hypot(e.clientX - start.x, e.clientY - start.y) < THRESHOLD) return;
      dragged.current = true;
      e.preventDefault();
      const box = el.getBoundingClientRect();
      const r = {
        left: Math.min(start.x, e.clientX),
        top: Math.min(start.y, e.clientY),
        right: Math.max(start.x, e.clientX),
        bottom: Math.max(start.y, e.clientY),
      };
      setBand({
        left: r.left - box.left,
        top: r.top - box.top + el.scrollTop,
        width: r.right - r.left,
        height: r.bottom - r.top,
      });
      const hit: number[] = [];
      for (const tile of el.querySelectorAll<HTMLElement>('[data-index]')) {
        const t = tile.getBoundingClientRect();
        if (t.right >= r.left && t.left <= r.right && t.bottom >= r.top && t.top <= r.bottom)
          hit.push(Number(tile.dataset.index));
      }
      selectIndices(
        hit.sort((a, b) => a - b),
        start.additive,
      );
    };
    const onUp = () => {
      start = null;
      setBand(null);
    };
    // The click after a drag opens nothing.
    const onClick = (e: MouseEvent) => {
      if (!dragged.current) return;
      dragged.current = false;
      e.preventDefault();
      e.stopPropagation();
    };
    el.addEventListener('pointerdown', onDown);
    window.addEventListener('pointermove', onMove);
    window.addEventListener('pointerup', onUp);
    el.addEventListener('click', onClick, true);
    return () => {
      el.removeEventListener('pointerdown', onDown);
      window.removeEventListener('pointermove', onMove);
      window.removeEventListener('pointerup', onUp);
      el.removeEventListener('click', onClick, true);
    };
  }, []);
  return band;
}
