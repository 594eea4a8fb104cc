/**
 * Long press on a grid tile (a finger held still for LONG_PRESS_MS), for entering selection mode on a phone.
 * The grid fires a cancelable, bubbling `tile-longpress` CustomEvent on the tile ({ index }: its place in the
 * listing). Whoever takes it (selection mode) calls preventDefault(); the click that ends the press is then
 * swallowed, so the tile is selected rather than opened, and the system's context menu is not shown.
 * Nobody listening: the press behaves as before (the browser's own long-press menu, the click opens).
 * Wiring for grid selection (branch `bulk`, selection/index.ts), once both are on main, in VirtualGrid:
 *   scroller.addEventListener(TILE_LONG_PRESS, (e) => { e.preventDefault(); enterSelectionMode(e.detail.index); })
 * test/web/phone.test.ts's long-press test then asserts the tile is selected (aria-selected) instead.
 */
import { useEffect } from 'preact/hooks';

export const LONG_PRESS_MS = 500;
/** A finger that moves further than this (px) is scrolling, not pressing. */
const SLOP_PX = 10;
export const TILE_LONG_PRESS = 'tile-longpress';

export interface TileLongPressDetail {
  index: number;
}

export function useTileLongPress(root: { current: HTMLElement | null }): void {
  useEffect(() => {
    const el = root.current;
    if (!el) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let origin: { x: number; y: number } | null = null;
    let taken = false;
    const cancel = () => {
      clearTimeout(timer);
      origin = null;
    };
    const onDown = (e: PointerEvent) => {
      if (e.pointerType === 'mouse' || !e.isPrimary) return;
      const tile = (e.target as Element).closest<HTMLElement>('[data-index]');
      if (!tile) return;
      taken = false;
      origin = { x: e.clientX, y: e.clientY };
      timer = setTimeout(() => {
        const detail: TileLongPressDetail = { index: Number(tile.dataset.index) };
        const event = new CustomEvent(TILE_LONG_PRESS, { detail, bubbles: true, cancelable: true });
        taken = !tile.dispatchEvent(event);
        if (taken) navigator.vibrate?.(20);
      }, LONG_PRESS_MS);
    };
    const onMove = (e: PointerEvent) => {
      if (origin && Math.hypot(e.clientX - origin.x, e.clientY - origin.y) > SLOP_PX) cancel();
    };
    const swallow = (e: Event) => {
      if (!taken) return;
      e.preventDefault();
      e.stopPropagation();
      if (e.type === 'click') taken = false;
    };
    el.addEventListener('pointerdown', onDown);
    el.addEventListener('pointermove', onMove);
    el.addEventListener('pointerup', cancel);
    el.addEventListener('pointercancel', cancel);
    el.addEventListener('contextmenu', swallow, true);
    el.addEventListener('click', swallow, true);
    return () => {
      cancel();
      el.removeEventListener('pointerdown', onDown);
      el.removeEventListener('pointermove', onMove);
      el.removeEventListener('pointerup', cancel);
      el.removeEventListener('pointercancel', cancel);
      el.removeEventListener('contextmenu', swallow, true);
      el.removeEventListener('click', swallow, true);
    };
  }, []);
}
