/** One month of the timeline: its sticky header, a block per day (sticky day header, rows of tiles) and placeholders. */
import { MediaThumb, VideoDuration } from '../../components/MediaThumb';
import { ProcessingBadge } from '../../components/ProcessingBadge';
import {
  DAY_HEAD,
  dayLabel,
  monthLabel,
  TILE_GAP,
  type DayBlock,
  type Layout,
  type MonthBlock,
} from './timelineLayout';
import type { TimelineItem } from './timelineApi';

export interface MonthProps {
  block: MonthBlock;
  layout: Layout;
  items: TimelineItem[];
  error: string | null;
  /** The view's top and bottom, as offsets inside this month's block (with overscan). */
  viewTop: number;
  viewBottom: number;
  hrefOf: (item: TimelineItem) => string;
  onOpen: (event: MouseEvent, href: string) => void;
  onRetry: () => void;
}

const intersects = (top: number, height: number, a: number, b: number) => top + height >= a && top <= b;

export function MonthSection(props: MonthProps) {
  const { block, layout, viewTop, viewBottom } = props;
  const id = `month-${block.month}`;
  return (
    <section class="tl-month" style={{ top: `${block.top}px`, height: `${block.height}px` }} aria-labelledby={id}>
      <h2 class="tl-month-head" id={id}>
        {monthLabel(block.month)}
        <span class="tl-count">
          {block.count.toLocaleString()} {block.count === 1 ? 'item' : 'items'}
        </span>
      </h2>
      {block.days
        .filter((d) => intersects(d.top, d.height, viewTop, viewBottom))
        .map((d) => (
          <DaySection key={d.day} {...props} day={d} />
        ))}
      {block.restRows > 0 ? (
        <div
          class="tl-rest"
          style={{
            top: `${block.restTop}px`,
            height: `${block.restRows * layout.row}px`,
            backgroundSize: `${layout.tile + TILE_GAP}px ${layout.row}px`,
          }}
          aria-hidden={props.error ? undefined : 'true'}
        >
          {props.error ? (
            <p class="tl-error" role="alert">
              Could not load {monthLabel(block.month)}: {props.error}{' '}
              <button type="button" onClick={props.onRetry}>
                Try again
              </button>
            </p>
          ) : null}
        </div>
      ) : null}
    </section>
  );
}

function DaySection(props: MonthProps & { day: DayBlock }) {
  const { day, layout, items } = props;
  const top = props.viewTop - day.top;
  const bottom = props.viewBottom - day.top;
  const rows = [];
  const count = Math.ceil(day.count / layout.columns);
  for (let r = 0; r < count; r++) {
    const y = DAY_HEAD + r * layout.row;
    if (!intersects(y, layout.row, top, bottom)) continue;
    const cells = [];
    for (let c = 0; c < layout.columns; c++) {
      const i = r * layout.columns + c;
      if (i >= day.count) break;
      const item = items[day.start + i];
      cells.push(<TimelineTile key={item.id} item={item} size={layout.tile} {...props} />);
    }
    rows.push(
      <div key={r} class="tl-row" style={{ top: `${y}px`, height: `${layout.tile}px` }}>
        {cells}
      </div>,
    );
  }
  return (
    <div class="tl-day" style={{ top: `${day.top}px`, height: `${day.height}px` }}>
      <h3 class="tl-day-head">{dayLabel(day.day)}</h3>
      {rows}
    </div>
  );
}

function TimelineTile(props: MonthProps & { item: TimelineItem; size: number }) {
  const { item, size } = props;
  const href = props.hrefOf(item);
  return (
    <a
      class={`tl-tile tile-${item.type}`}
      href={href}
      style={{ width: `${size}px`, height: `${size}px` }}
      onClick={(e) => props.onOpen(e, href)}
      draggable={false}
    >
      <MediaThumb item={item} />
      <VideoDuration item={item} />
      <ProcessingBadge item={item} />
    </a>
  );
}
