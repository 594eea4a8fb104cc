/**
 * The map's view and its drawing: the view lives in a ref, and every change (gestures, buttons, a resize, an
 * atlas arriving, the colour scheme changing) is drawn once, at the next animation frame: the canvas, then the
 * markers of that view (a state, so Preact renders them as buttons).
 */
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { RefObject } from 'preact';
import { coarseAtlas, detailedAtlas, DETAIL_ZOOM, type Atlas } from './atlas';
import { markersIn, type Marker, type PointIndex } from './clusters';
import { drawMap } from './draw';
import type { MapPoints } from './mapApi';
import { useMapGestures, type ViewControl } from './mapGestures';
import { clampView, fitPoints, worldX, worldY, type View } from './projection';

/** The zoom a focused position opens at (a town's streets). */
const FOCUS_ZOOM = 13;

const firstView = (points: MapPoints, focus: [number, number] | null, width: number, height: number): View =>
  focus
    ? clampView({ cx: worldX(focus[1]), cy: worldY(focus[0]), zoom: FOCUS_ZOOM, width, height })
    : fitPoints(points.latitudes, points.longitudes, width, height);

export function useMapView(
  stage: RefObject<HTMLDivElement | null>,
  canvas: RefObject<HTMLCanvasElement | null>,
  index: PointIndex,
  points: MapPoints,
  /** Where to open instead of showing every point: [latitude, longitude] (the viewer's position link). */
  focus: [number, number] | null = null,
) {
  const [markers, setMarkers] = useState<Marker[]>([]);
  const [zoom, setZoom] = useState(0);
  const state = useRef<{
    view: View | null;
    atlas: Atlas | null;
    detail: Atlas | null;
    /** The detailed atlas was asked for (once: if it fails, the coarse one stays). */
    detailAsked: boolean;
    frame: number;
  }>({ view: null, atlas: null, detail: null, detailAsked: false, frame: 0 });
  const control = useMemo<ViewControl>(() => {
    const render = () => {
      const s = state.current;
      s.frame = 0;
      const v = s.view;
      if (!v || !canvas.current) return;
      if (v.zoom >= DETAIL_ZOOM && !s.detailAsked) {
        s.detailAsked = true;
        detailedAtlas().then(
          (a) => {
            s.detail = a;
            control.set(s.view!);
          },
          () => undefined,
        );
      }
      drawMap(canvas.current, v, v.zoom >= DETAIL_ZOOM && s.detail ? s.detail : s.atlas);
      setMarkers(markersIn(index, v));
      setZoom(v.zoom);
    };
    return {
      get: () => state.current.view!,
      set: (v: View) => {
        state.current.view = v;
        state.current.frame ||= requestAnimationFrame(render);
      },
    };
  }, [index]);
  useMapGestures(stage, control);

  useEffect(() => {
    const el = stage.current;
    if (!el) return;
    const resize = () => {
      if (!canvas.current) return;
      const width = el.clientWidth;
      const height = el.clientHeight;
      const dpr = window.devicePixelRatio || 1;
      canvas.current.width = Math.round(width * dpr);
      canvas.current.height = Math.round(height * dpr);
      const v = state.current.view;
      control.set(v ? clampView({ ...v, width, height }) : firstView(points, focus, width, height));
    };
    resize();
    const observer = new ResizeObserver(resize);
    observer.observe(el);
    // Without an atlas (its chunk failed to load) the markers still show over the sea.
    coarseAtlas().then(
      (a) => {
        state.current.atlas = a;
        control.set(state.current.view!);
      },
      () => undefined,
    );
    const scheme = window.matchMedia('(prefers-color-scheme: dark)');
    const redraw = () => control.set(state.current.view!);
    scheme.addEventListener('change', redraw);
    return () => {
      observer.disconnect();
      scheme.removeEventListener('change', redraw);
      cancelAnimationFrame(state.current.frame);
      state.current.frame = 0;
    };
  }, [control, points]);

  return { control, markers, zoom, view: () => state.current.view };
}
