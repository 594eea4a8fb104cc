/**
 * Touch on the viewer's stage (pointer events from a finger or pen; the mouse keeps its desktop behaviour):
 * swipe left/right for the next/previous item, pull down to close, pinch or double tap to zoom, drag to pan
 * while zoomed (images only: a video's own controls need their taps). Listens on the document and acts on a
 * touch that starts on the viewer's picture, `.viewer .region-stage` (touch-action: none there, phone.css),
 * which it moves with CSS transforms (no re-render).
 */
import { useEffect, useRef } from 'preact/hooks';
import { navigate } from '../../lib/router';
import { viewerUrl, type Neighbours } from './neighbours';
import {
  clampZoom,
  doubleTapZoom,
  dragOutcome,
  DOUBLE_TAP_MS,
  DOUBLE_TAP_PX,
  NO_ZOOM,
  zoomAbout,
  zoomTransform,
  type Zoom,
} from './gestures';

export interface StageGestureHandlers {
  next: () => void;
  previous: () => void;
  close: () => void;
}

interface Point {
  x: number;
  y: number;
}

const distance = (a: Point, b: Point) => Math.hypot(a.x - b.x, a.y - b.y);

export function useStageGestures(handlers: StageGestureHandlers): void {
  const current = useRef(handlers);
  current.current = handlers;
  useEffect(() => {
    const el = document;
    const pointers = new Map<number, Point>();
    let zoom: Zoom = NO_ZOOM;
    let stage: HTMLElement | null = null;
    let start: (Point & { t: number; zoom: Zoom }) | null = null;
    let pinch: { d: number; zoom: Zoom; mid: Point } | null = null;
    let lastTap: (Point & { t: number }) | null = null;
    /** The stage's untransformed size, and its centre on screen (the transform is about the centre). */
    const box = () => {
      const r = stage!.getBoundingClientRect();
      return {
        width: stage!.offsetWidth,
        height: stage!.offsetHeight,
        cx: r.left + r.width / 2 - zoom.x,
        cy: r.top + r.height / 2 - zoom.y,
      };
    };
    const centred = (p: Point): Point => {
      const b = box();
      return { x: p.x - b.cx, y: p.y - b.cy };
    };
    const show = (transform: string, opacity = '') => {
      if (!stage) return;
      stage.style.transform = transform;
      stage.style.opacity = opacity;
    };
    const zoomable = () => !!stage?.classList.contains('image-stage');
    const setZoom = (z: Zoom) => {
      const b = box();
      zoom = clampZoom(z, b.width, b.height);
      stage?.classList.toggle('zoomed', zoom.scale > 1);
      show(zoomTransform(zoom));
    };

    const onDown = (e: PointerEvent) => {
      if (e.pointerType === 'mouse') return;
      const on = (e.target as Element).closest<HTMLElement>('.viewer .region-stage');
      if (!on || (stage && on !== stage && pointers.size > 0)) return;
      stage = on;
      pointers.set(e.pointerId, { x: e.clientX, y: e.clientY });
      if (pointers.size === 1) start = { x: e.clientX, y: e.clientY, t: e.timeStamp, zoom };
      else if (pointers.size === 2 && zoomable()) {
        const [a, b] = [...pointers.values()];
        pinch = { d: distance(a, b), zoom, mid: centred({ x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 }) };
        start = null;
      }
    };
    const onMove = (e: PointerEvent) => {
      if (!pointers.has(e.pointerId)) return;
      pointers.set(e.pointerId, { x: e.clientX, y: e.clientY });
      if (pinch && pointers.size === 2) {
        const [a, b] = [...pointers.values()];
        const mid = centred({ x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 });
        const scaled = zoomAbout(pinch.zoom, (pinch.zoom.scale * distance(a, b)) / pinch.d, pinch.mid.x, pinch.mid.y);
        setZoom({ ...scaled, x: scaled.x + mid.x - pinch.mid.x, y: scaled.y + mid.y - pinch.mid.y });
        return;
      }
      if (!start) return;
      const dx = e.clientX - start.x;
      const dy = e.clientY - start.y;
      if (start.zoom.scale > 1) setZoom({ ...start.zoom, x: start.zoom.x + dx, y: start.zoom.y + dy });
      else if (Math.abs(dx) >= Math.abs(dy)) show(`translateX(${dx}px)`);
      else if (dy > 0) show(`translateY(${dy}px)`, String(Math.max(0.3, 1 - dy / 400)));
    };
    const onUp = (e: PointerEvent) => {
      if (!pointers.delete(e.pointerId)) return;
      if (pinch) {
        if (pointers.size === 0) pinch = null;
        return;
      }
      const s = start;
      start = null;
      if (!s || e.type === 'pointercancel') return void show(zoomTransform(zoom));
      const dx = e.clientX - s.x;
      const dy = e.clientY - s.y;
      if (Math.hypot(dx, dy) < 10 && e.timeStamp - s.t < 300)
        return onTap({ x: e.clientX, y: e.clientY, t: e.timeStamp });
      if (s.zoom.scale > 1) return;
      const outcome = dragOutcome(dx, dy);
      show('');
      if (outcome !== 'none') current.current[outcome]();
    };
    const onTap = (tap: Point & { t: number }) => {
      const double = lastTap && tap.t - lastTap.t < DOUBLE_TAP_MS && distance(tap, lastTap) < DOUBLE_TAP_PX;
      lastTap = double ? null : tap;
      if (!double || !zoomable()) return;
      const p = centred(tap);
      const b = box();
      setZoom(doubleTapZoom(zoom, p.x, p.y, b.width, b.height));
    };
    el.addEventListener('pointerdown', onDown);
    el.addEventListener('pointermove', onMove);
    el.addEventListener('pointerup', onUp);
    el.addEventListener('pointercancel', onUp);
    return () => {
      el.removeEventListener('pointerdown', onDown);
      el.removeEventListener('pointermove', onMove);
      el.removeEventListener('pointerup', onUp);
      el.removeEventListener('pointercancel', onUp);
    };
  }, []);
}

/** The phone layout (viewer.css and phone.css switch at the same width): details start hidden there. */
export const isPhoneLayout = (): boolean => window.matchMedia('(max-width: 720px)').matches;

/** The viewer's gestures: swipes step through `from` as ←/→ do, pull down goes `back` as Esc does. */
export function useViewerTouch(neighbours: Neighbours, from: string | null, back: string): void {
  useStageGestures({
    next: () => neighbours.next && navigate(viewerUrl(neighbours.next, from)),
    previous: () => neighbours.previous && navigate(viewerUrl(neighbours.previous, from)),
    close: () => navigate(back),
  });
}
