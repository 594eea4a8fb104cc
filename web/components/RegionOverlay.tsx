/**
 * Regions (detected objects, faces, text lines) drawn over an image or a video frame. The SVG's viewBox is
 * the frame's pixel size, so polygons are drawn in the frame's own coordinates and scale with the picture;
 * it is laid over the picture by CSS (`.region-stage` > `.region-overlay`). Labels are SVG text nodes (JSX
 * text, never markup). Keyboard and screen-reader access to the regions is the region list beside it; the
 * SVG carries one summary name.
 */
import type { Region } from '../screens/viewer/types';
import './region-overlay.css';

/** `x,y x,y …` for an SVG polygon. */
export const pointsOf = (r: Region): string => r.polygon.map((p) => `${p.x},${p.y}`).join(' ');

/** A short human name of a region, e.g. "face: Ada" or "text: EXIT". */
export const regionName = (r: Region): string =>
  `${r.type === 'object' ? 'object' : r.type}: ${r.label || 'unlabelled'}`;

export function RegionOverlay(props: {
  width: number;
  height: number;
  regions: Region[];
  /** The region to emphasise (hovered or focused in the list). */
  activeId?: string | null;
  /** Draw labels beside the shapes (off on small tiles). */
  labels?: boolean;
  onHover?: (id: string | null) => void;
  onSelect?: (region: Region) => void;
}) {
  const { width, height, regions } = props;
  if (!width || !height) return null;
  const fontSize = Math.max(width, height) / 45;
  const summary = regions.length ? `Regions: ${regions.map(regionName).join('; ')}` : 'No regions shown';
  return (
    <svg
      class="region-overlay"
      viewBox={`0 0 ${width} ${height}`}
      preserveAspectRatio="none"
      role="img"
      aria-label={summary}
    >
      {regions
        .filter((r) => r.polygon.length >= 2)
        .map((r) => (
          <g
            key={r.id}
            class={`region region-${r.type}${props.activeId === r.id ? ' active' : ''}`}
            data-region-id={r.id}
            onMouseEnter={() => props.onHover?.(r.id)}
            onMouseLeave={() => props.onHover?.(null)}
            onClick={() => props.onSelect?.(r)}
          >
            <polygon points={pointsOf(r)} vector-effect="non-scaling-stroke" />
            {props.labels && (
              <text x={r.polygon[0].x + fontSize * 0.3} y={r.polygon[0].y + fontSize * 1.1} font-size={fontSize}>
                {r.label}
              </text>
            )}
          </g>
        ))}
    </svg>
  );
}
