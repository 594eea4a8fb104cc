/**
 * The scrubber on the timeline's right edge: the years (labels) and months (ticks) at their places in the scroll
 * space, the current position marked with its month. Click or drag anywhere to jump there; as a slider it takes
 * the keyboard: ↑/↓ a month, Page Up/Down a year, Home/End the newest and the oldest.
 */
import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import { monthLabel, shortMonth, type Layout } from './timelineLayout';

export interface ScrubberProps {
  layout: Layout;
  /** The month shown at the top of the view (index into layout.months). */
  current: number;
  /** Where the view is, 0 (newest) … 1 (oldest). */
  position: number;
  onJump: (index: number) => void;
}

/** Labels closer than this (px) to the one above are left out. */
const LABEL_ROOM = 18;

/** The index of the first month of the year after (dir 1: older) or before (-1: newer) the month at `from`. */
function yearStep(layout: Layout, from: number, dir: 1 | -1): number {
  const months = layout.months;
  const year = months[from].month.slice(0, 4);
  let i = from;
  if (dir === 1) {
    while (i < months.length - 1 && months[i].month.slice(0, 4) === year) i++;
    return i;
  }
  while (i > 0 && months[i - 1].month.slice(0, 4) === year) i--;
  if (i === from && i > 0) {
    const before = months[i - 1].month.slice(0, 4);
    i--;
    while (i > 0 && months[i - 1].month.slice(0, 4) === before) i--;
  }
  return i;
}

export function Scrubber({ layout, current, position, onJump }: ScrubberProps) {
  const bar = useRef<HTMLDivElement>(null);
  const [height, setHeight] = useState(0);
  const [dragging, setDragging] = useState(false);
  useLayoutEffect(() => {
    const el = bar.current;
    if (!el) return;
    const observer = new ResizeObserver(() => setHeight(el.clientHeight));
    observer.observe(el);
    return () => observer.disconnect();
  }, []);
  const months = layout.months;
  const total = Math.max(1, layout.height);
  const at = (top: number) => (top / total) * height;

  const jumpTo = (clientY: number) => {
    const rect = bar.current!.getBoundingClientRect();
    const offset = (Math.min(Math.max(clientY - rect.top, 0), rect.height - 1) / Math.max(1, rect.height)) * total;
    let i = 0;
    while (i < months.length - 1 && months[i + 1].top <= offset) i++;
    onJump(i);
  };

  const onKeyDown = (e: KeyboardEvent) => {
    const last = months.length - 1;
    const to: Record<string, number> = {
      ArrowDown: Math.min(last, current + 1),
      ArrowRight: Math.min(last, current + 1),
      ArrowUp: Math.max(0, current - 1),
      ArrowLeft: Math.max(0, current - 1),
      PageDown: yearStep(layout, current, 1),
      PageUp: yearStep(layout, current, -1),
      Home: 0,
      End: last,
    };
    if (!(e.key in to)) return;
    e.preventDefault();
    onJump(to[e.key]);
  };

  // Year labels at each year's newest month; where two would touch, the year that spans more stays.
  const years: Array<{ year: string; y: number; span: number }> = [];
  for (let i = 0; i < months.length; i++) {
    const year = months[i].month.slice(0, 4);
    const y = at(months[i].top);
    const prev = years[years.length - 1];
    if (prev && prev.year === year) continue;
    const end = i + 1 < months.length ? months.slice(i).find((m) => m.month.slice(0, 4) !== year) : undefined;
    const span = (end ? at(end.top) : height) - y;
    if (prev && y - prev.y < LABEL_ROOM) {
      if (span > prev.span) years[years.length - 1] = { year, y, span };
      continue;
    }
    years.push({ year, y, span });
  }
  const labels = years.map(({ year, y }) => (
    <span key={year} class="scrub-year" style={{ top: `${y}px` }}>
      {year}
    </span>
  ));
  const ticks = height / Math.max(1, months.length) >= 3 ? months : [];
  const cur = months[current];
  return (
    <div
      ref={bar}
      class={dragging ? 'scrubber dragging' : 'scrubber'}
      role="slider"
      tabIndex={0}
      aria-label="Jump to a month"
      aria-orientation="vertical"
      aria-valuemin={0}
      aria-valuemax={Math.max(0, months.length - 1)}
      aria-valuenow={current}
      aria-valuetext={cur ? monthLabel(cur.month) : ''}
      onKeyDown={onKeyDown}
      onPointerDown={(e) => {
        if (e.button !== 0) return;
        e.preventDefault();
        (e.currentTarget as HTMLElement).setPointerCapture?.(e.pointerId);
        (e.currentTarget as HTMLElement).focus({ preventScroll: true });
        setDragging(true);
        jumpTo(e.clientY);
      }}
      onPointerMove={(e) => dragging && jumpTo(e.clientY)}
      onPointerUp={() => setDragging(false)}
      onPointerCancel={() => setDragging(false)}
    >
      {ticks.map((m) => (
        <span key={m.month} class="scrub-tick" style={{ top: `${at(m.top)}px` }} title={monthLabel(m.month)} />
      ))}
      {labels}
      {cur ? (
        <span class="scrub-now" style={{ top: `${Math.min(position, 1) * height}px` }} aria-hidden="true">
          <span class="scrub-bubble">
            {shortMonth(cur.month)} {cur.month.slice(0, 4)}
          </span>
        </span>
      ) : null}
    </div>
  );
}
