/**
 * Long press on a grid tile (a finger held still for LONG_PRESS_MS), for entering selection mode on a phone.
 * The grid fires a cancelable, bubbling `tile-longpress` CustomEvent on the tile ({ index }: its place in the
 * listing). Whoever takes it (selection mode) calls preventDefault(); the click that ends the press is then
 * swallowed, so the tile is selected rather than opened, and the system's context menu is not shown.
 * Nobody listening: the press behaves as before (the browser's own long-press menu, the click opens).
 * VirtualGrid takes it: the press enters selection mode with that tile selected (selection/selection.ts).
 */
import { useEffect } from 'preact/hooks';
import { enterSelectionMode } from './selection/selection';

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
    // On the window: the press may change the layout under the finger (the selection bar appears), so the click
    // that ends it can land outside the grid, e.g. on one of the bar's buttons.
    window.addEventListener('contextmenu', swallow, true);
    window.addEventListener('click', swallow, true);
    return () => {
      cancel();
      el.removeEventListener('pointerdown', onDown);
      el.removeEventListener('pointermove', onMove);
      el.removeEventListener('pointerup', cancel);
      el.removeEventListener('pointercancel', cancel);
      window.removeEventListener('contextmenu', swallow, true);
      window.removeEventListener('click', swallow, true);
    };
  }, []);
}

/** Takes the grid's long presses: selection mode starts with the pressed tile selected. */
export function useLongPressSelects(root: { current: HTMLElement | null }): void {
  useEffect(() => {
    const el = root.current;
    const onPress = (e: Event) => {
      e.preventDefault(); // taken: the click that ends the press is swallowed, it does not open the item
      enterSelectionMode((e as CustomEvent<TileLongPressDetail>).detail.index);
    };
    el?.addEventListener(TILE_LONG_PRESS, onPress);
    return () => el?.removeEventListener(TILE_LONG_PRESS, onPress);
  }, []);
}
