/** One frame of the map on a canvas: the sea, the world's land, the borders between countries. */
import type { Atlas } from './atlas';
import { worldSize, type View } from './projection';

interface Colors {
  sea: string;
  land: string;
  border: string;
  space: string;
}

/** The colours from the stage's CSS custom properties (map.css), so dark mode and themes apply. */
function colorsOf(el: Element): Colors {
  const style = getComputedStyle(el);
  const get = (name: string, fallback: string) => style.getPropertyValue(name).trim() || fallback;
  return {
    sea: get('--map-sea', '#cfe3f3'),
    land: get('--map-land', '#f4f1e8'),
    border: get('--map-border', '#9aa3ad'),
    space: get('--map-space', '#e5e7eb'),
  };
}

export function drawMap(canvas: HTMLCanvasElement, view: View, atlas: Atlas | null): void {
  const ctx = canvas.getContext('2d');
  if (!ctx) return;
  const dpr = canvas.width / Math.max(1, view.width);
  const colors = colorsOf(canvas);
  const size = worldSize(view.zoom);
  const left = view.width / 2 - view.cx * size;
  const top = view.height / 2 - view.cy * size;
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.fillStyle = colors.space;
  ctx.fillRect(0, 0, view.width, view.height);
  ctx.fillStyle = colors.sea;
  ctx.fillRect(left, top, size, size);
  if (!atlas) return;
  ctx.save();
  ctx.beginPath();
  ctx.rect(left, top, size, size);
  ctx.clip();
  ctx.fillStyle = colors.land;
  ctx.strokeStyle = colors.border;
  ctx.lineWidth = 1 / size;
  const at = (shift: number) => ctx.setTransform(dpr * size, 0, 0, dpr * size, dpr * (left + shift * size), dpr * top);
  // Fills first, then borders. The rings across the antimeridian go where they are and a world over each side.
  at(0);
  ctx.fill(atlas.land, 'evenodd');
  for (const shift of [-1, 0, 1]) {
    at(shift);
    ctx.fill(atlas.landAcross, 'evenodd');
  }
  at(0);
  ctx.stroke(atlas.borders);
  for (const shift of [-1, 0, 1]) {
    at(shift);
    ctx.stroke(atlas.bordersAcross);
  }
  ctx.restore();
  ctx.setTransform(1, 0, 0, 1, 0, 0);
}
