/**
 * Pan and zoom by hand: drag (mouse, pen or one finger), pinch (two fingers), the wheel or a trackpad, and the
 * keyboard (arrow keys pan, + and − zoom). A drag past a few pixels swallows the click that ends it, so
 * dragging across a marker does not open it.
 */
import { useEffect } from 'preact/hooks';
import type { RefObject } from 'preact';
import { keyToView, panBy, zoomAt, type View } from './projection';

const DRAG_THRESHOLD = 4;

export interface ViewControl {
  get(): View;
  set(view: View): void;
}

export function useMapGestures(stage: RefObject<HTMLElement | null>, control: ViewControl): void {
  useEffect(() => {
    const el = stage.current;
    if (!el) return;
    const pointers = new Map<number, { x: number; y: number }>();
    let travelled = 0;
    let swallowClick = false;
    const local = (e: { clientX: number; clientY: number }) => {
      const r = el.getBoundingClientRect();
      return { x: e.clientX - r.left, y: e.clientY - r.top };
    };
    const spread = () => {
      const [a, b] = [...pointers.values()];
      return { d: Math.hypot(a.x - b.x, a.y - b.y), mx: (a.x + b.x) / 2, my: (a.y + b.y) / 2 };
    };
    const down = (e: PointerEvent) => {
      if (e.pointerType === 'mouse' && e.button !== 0) return;
      pointers.set(e.pointerId, local(e));
      travelled = 0;
    };
    const move = (e: PointerEvent) => {
      const last = pointers.get(e.pointerId);
      if (!last) return;
      const now = local(e);
      if (pointers.size === 2) {
        const before = spread();
        pointers.set(e.pointerId, now);
        const after = spread();
        let v = panBy(control.get(), after.mx - before.mx, after.my - before.my);
        if (before.d > 0 && after.d > 0) v = zoomAt(v, Math.log2(after.d / before.d), after.mx, after.my);
        control.set(v);
        travelled += DRAG_THRESHOLD;
      } else {
        pointers.set(e.pointerId, now);
        travelled += Math.hypot(now.x - last.x, now.y - last.y);
        if (travelled < DRAG_THRESHOLD) return;
        // Keep the drag when the pointer leaves the map (a pointer the browser no longer knows cannot be captured).
        if (!el.hasPointerCapture(e.pointerId)) el.setPointerCapture?.(e.pointerId);
        control.set(panBy(control.get(), now.x - last.x, now.y - last.y));
      }
      el.classList.add('dragging');
    };
    const up = (e: PointerEvent) => {
      if (!pointers.delete(e.pointerId)) return;
      if (travelled >= DRAG_THRESHOLD) swallowClick = true;
      if (pointers.size === 0) el.classList.remove('dragging');
      setTimeout(() => (swallowClick = false), 0);
    };
    const click = (e: MouseEvent) => {
      if (!swallowClick) return;
      swallowClick = false;
      e.stopPropagation();
      e.preventDefault();
    };
    const wheel = (e: WheelEvent) => {
      e.preventDefault();
      const { x, y } = local(e);
      const step = e.deltaMode === 1 ? 0.05 : e.deltaMode === 2 ? 1 : 0.002;
      control.set(zoomAt(control.get(), Math.max(-1, Math.min(1, -e.deltaY * step)), x, y));
    };
    const key = (e: KeyboardEvent) => {
      if (e.ctrlKey || e.metaKey || e.altKey) return;
      const next = keyToView(control.get(), e.key);
      if (!next) return;
      e.preventDefault();
      control.set(next);
    };
    el.addEventListener('pointerdown', down);
    el.addEventListener('pointermove', move);
    el.addEventListener('pointerup', up);
    el.addEventListener('pointercancel', up);
    el.addEventListener('click', click, true);
    el.addEventListener('wheel', wheel, { passive: false });
    el.addEventListener('keydown', key);
    return () => {
      el.removeEventListener('pointerdown', down);
      el.removeEventListener('pointermove', move);
      el.removeEventListener('pointerup', up);
      el.removeEventListener('pointercancel', up);
      el.removeEventListener('click', click, true);
      el.removeEventListener('wheel', wheel);
      el.removeEventListener('keydown', key);
    };
  }, [stage, control]);
}
