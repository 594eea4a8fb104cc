/**
 * The viewer's touch gestures as plain arithmetic (useStageGestures.ts feeds them pointer positions):
 * what a finished one-finger drag means, and the zoom transform (pinch, double tap, pan) kept in bounds.
 */

/** A horizontal drag this far (px) is a swipe to the next or previous item. */
export const SWIPE_PX = 60;
/** A downward drag this far (px) closes the viewer. */
export const PULL_CLOSE_PX = 100;
/** A drag must be this much more along its axis than across it to count. */
const AXIS_RATIO = 1.5;
export const MAX_SCALE = 5;
export const DOUBLE_TAP_SCALE = 2.5;
/** Two taps closer than this (ms, px) are a double tap. */
export const DOUBLE_TAP_MS = 300;
export const DOUBLE_TAP_PX = 30;

export type DragOutcome = 'next' | 'previous' | 'close' | 'none';

/** What a one-finger drag of (dx, dy) means on an unzoomed picture: left = next, right = previous, down = close. */
export function dragOutcome(dx: number, dy: number): DragOutcome {
  if (Math.abs(dx) >= SWIPE_PX && Math.abs(dx) >= Math.abs(dy) * AXIS_RATIO) return dx < 0 ? 'next' : 'previous';
  if (dy >= PULL_CLOSE_PX && dy >= Math.abs(dx) * AXIS_RATIO) return 'close';
  return 'none';
}

/** A zoom: the picture scaled by `scale` about its centre, then moved by (x, y) px. */
export interface Zoom {
  scale: number;
  x: number;
  y: number;
}

export const NO_ZOOM: Zoom = { scale: 1, x: 0, y: 0 };

/** Keeps the picture covering its box: at scale s it may move at most (s − 1)/2 of its size each way. */
export function clampZoom(z: Zoom, width: number, height: number): Zoom {
  const scale = Math.min(MAX_SCALE, Math.max(1, z.scale));
  const mx = ((scale - 1) * width) / 2;
  const my = ((scale - 1) * height) / 2;
  return { scale, x: Math.min(mx, Math.max(-mx, z.x)), y: Math.min(my, Math.max(-my, z.y)) };
}

/**
 * The zoom to `scale` that keeps the point (px, py) (relative to the box's centre) where it is on screen:
 * a point p shows at p·s + t, so t' = p·s + t − p·s'… solved for the same screen position.
 */
export function zoomAbout(z: Zoom, scale: number, px: number, py: number): Zoom {
  const ratio = scale / z.scale;
  return { scale, x: px - (px - z.x) * ratio, y: py - (py - z.y) * ratio };
}

/** A double tap: zoom in about the tapped point, or back out when zoomed. */
export function doubleTapZoom(z: Zoom, px: number, py: number, width: number, height: number): Zoom {
  if (z.scale > 1.01) return NO_ZOOM;
  return clampZoom(zoomAbout(z, DOUBLE_TAP_SCALE, px, py), width, height);
}

export const zoomTransform = (z: Zoom): string =>
  z.scale === 1 && z.x === 0 && z.y === 0 ? '' : `translate(${z.x}px, ${z.y}px) scale(${z.scale})`;
