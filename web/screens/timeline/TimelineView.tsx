/**
 * The timeline itself: a virtualised scroll space of month blocks (timelineLayout.ts) with only the months, days
 * and rows in view in the DOM, and the scrubber beside it. A month's items are asked for by its date range once
 * scrolling pauses over it (at once after a jump). When items arrive and a month above changes height, the view
 * stays on what it showed (the month at the top and the offset into it).
 */
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import { layout, monthAt, type Layout } from './timelineLayout';
import { MonthStore } from './monthStore';
import { MonthSection } from './MonthSection';
import { Scrubber } from './Scrubber';
import type { Bucket, TimelineItem, TimelineScope } from './timelineApi';

/** Scrolling must pause this long over a month before its items are asked for. */
const FETCH_DELAY_MS = 60;
/** Pixels rendered above and below the view. */
const OVERSCAN = 600;

export interface TimelineViewProps {
  scope: TimelineScope;
  buckets: Bucket[];
  /** The month to show first (`YYYY-MM`), else the newest. */
  startMonth: string | null;
  hrefOf: (item: TimelineItem, month: string) => string;
  onOpen: (event: MouseEvent, href: string, month: string) => void;
}

function useViewport(scroller: { current: HTMLDivElement | null }, onScroll: (el: HTMLDivElement) => void) {
  const [size, setSize] = useState({ width: 0, height: 0 });
  const [scrollTop, setScrollTop] = useState(0);
  useLayoutEffect(() => {
    const el = scroller.current!;
    const observer = new ResizeObserver(() => setSize({ width: el.clientWidth, height: el.clientHeight }));
    observer.observe(el);
    let frame = 0;
    const handler = () => {
      onScroll(el);
      if (!frame)
        frame = requestAnimationFrame(() => {
          frame = 0;
          setScrollTop(el.scrollTop);
        });
    };
    el.addEventListener('scroll', handler, { passive: true });
    return () => {
      observer.disconnect();
      el.removeEventListener('scroll', handler);
      cancelAnimationFrame(frame);
    };
  }, []);
  return { size, scrollTop, setScrollTop };
}

export function TimelineView({ scope, buckets, startMonth, hrefOf, onOpen }: TimelineViewProps) {
  const scroller = useRef<HTMLDivElement>(null);
  const store = useMemo(() => new MonthStore(scope), [scope.orgId, scope.datasetId]);
  useEffect(() => () => store.close(), [store]);
  const current = useRef<Layout | null>(null);
  // What the view shows: a month and the offset into it (kept when heights change above it).
  const start = Math.max(0, startMonth ? buckets.findIndex((b) => b.month <= startMonth) : 0);
  const anchor = useRef({ month: buckets[start]?.month ?? '', offset: 0 });
  const jumped = useRef(true);
  const { size, scrollTop, setScrollTop } = useViewport(scroller, (el) => {
    const l = current.current;
    if (!l || l.months.length === 0) return;
    const block = l.months[monthAt(l, el.scrollTop)];
    anchor.current = { month: block.month, offset: el.scrollTop - block.top };
  });
  void store.version.value; // re-render when items arrive
  const l = layout(buckets, (m) => store.get(m), Math.max(1, size.width - 4));
  current.current = l;
  const index = useMemo(() => new Map(buckets.map((b, i) => [b.month, i])), [buckets]);

  useLayoutEffect(() => {
    const el = scroller.current;
    const i = index.get(anchor.current.month);
    if (!el || i === undefined || size.width === 0) return;
    const want = l.months[i].top + anchor.current.offset;
    if (Math.abs(el.scrollTop - want) >= 1) {
      el.scrollTop = want;
      setScrollTop(el.scrollTop);
    }
  });

  const top = scrollTop;
  const first = l.months.length ? monthAt(l, Math.max(0, top - OVERSCAN)) : 0;
  const last = l.months.length ? monthAt(l, top + size.height + OVERSCAN) : -1;
  const visible = l.months.slice(first, last + 1);

  useEffect(() => {
    if (size.width === 0) return;
    const load = () => {
      for (const b of visible) {
        // The month's placeholder rows are in view: its next items.
        if (b.restRows > 0 && b.top + b.restTop <= top + size.height && b.top + b.height >= top)
          store.want(b.month, b.count);
      }
    };
    if (jumped.current) {
      jumped.current = false;
      return load();
    }
    const timer = setTimeout(load, FETCH_DELAY_MS);
    return () => clearTimeout(timer);
  });

  const jump = (i: number) => {
    const el = scroller.current;
    const block = l.months[i];
    if (!el || !block) return;
    anchor.current = { month: block.month, offset: 0 };
    jumped.current = true;
    store.want(block.month, block.count);
    el.scrollTop = block.top;
    setScrollTop(el.scrollTop);
  };

  // Room below the oldest month, so that a jump to it puts it at the top as well.
  const lastBlock = l.months[l.months.length - 1];
  const pad = lastBlock ? Math.max(0, size.height - lastBlock.height) : 0;
  const shown = l.months.length ? monthAt(l, top + 1) : 0;
  return (
    <div class="tl-body">
      <div ref={scroller} class="tl-scroller" tabIndex={-1}>
        <div class="tl-space" style={{ height: `${l.height + pad}px` }}>
          {visible.map((b) => (
            <MonthSection
              key={b.month}
              block={b}
              layout={l}
              items={store.get(b.month)}
              error={store.error(b.month)}
              viewTop={top - OVERSCAN - b.top}
              viewBottom={top + size.height + OVERSCAN - b.top}
              hrefOf={(item) => hrefOf(item, b.month)}
              onOpen={(e, href) => onOpen(e, href, b.month)}
              onRetry={() => store.retry(b.month)}
            />
          ))}
        </div>
      </div>
      <Scrubber
        layout={l}
        current={shown}
        position={l.height + pad > size.height ? top / (l.height + pad - size.height) : 0}
        onJump={jump}
      />
    </div>
  );
}
