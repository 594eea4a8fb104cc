/** One cell of the browse grid: an item (thumbnail, name, date, video duration, processing badge), a folder, or a placeholder. */
import type { CSSProperties } from 'preact';
import { MediaThumb, VideoDuration } from '../../components/MediaThumb';
import { ProcessingBadge } from '../../components/ProcessingBadge';
import type { MediaItem } from './browseApi';
import { FavoriteMark } from './FlagFilters';

const DATE = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' });

export interface TileProps {
  index: number;
  item: MediaItem | undefined;
  href: string;
  /** The one tile of the grid reachable with Tab (roving tabindex). */
  tabStop: boolean;
  style: CSSProperties;
  /** Whether the tile is in the selection (selection/selection.ts). */
  selected: boolean;
  onOpen: (event: MouseEvent, href: string, index: number) => void;
}

export function Tile({ index, item, href, tabStop, style, selected, onOpen }: TileProps) {
  if (!item)
    return (
      <div role="gridcell" class="tile-cell" style={style} aria-selected={selected}>
        <span class="tile tile-loading" data-index={index} tabIndex={tabStop ? 0 : -1} aria-label="Loading…" />
      </div>
    );
  return (
    <div role="gridcell" class="tile-cell" style={style} aria-selected={selected}>
      <span class="tile-check" aria-hidden="true" />
      <a
        class={`tile tile-${item.type}`}
        href={href}
        data-index={index}
        tabIndex={tabStop ? 0 : -1}
        onClick={(e) => onOpen(e, href, index)}
        draggable={false}
      >
        <span class="tile-media">
          {item.type === 'folder' ? <FolderGlyph /> : <MediaThumb item={item} />}
          <VideoDuration item={item} />
          {item.type !== 'folder' ? <ProcessingBadge item={item} /> : null}
          {item.favorite ? <FavoriteMark /> : null}
        </span>
        <span class="tile-name">{item.name}</span>
        <span class="tile-meta">
          {item.type === 'folder'
            ? `Folder · ${(item.folderItemCount ?? 0).toLocaleString()} ${item.folderItemCount === 1 ? 'item' : 'items'}`
            : DATE.format(new Date(item.createdAt))}
        </span>
      </a>
    </div>
  );
}

function FolderGlyph() {
  return (
    <span class="media-thumb media-thumb-placeholder media-thumb-folder">
      <svg viewBox="0 0 24 24" width="40" height="40" aria-hidden="true" focusable="false">
        <path fill="currentColor" d="M3 6a1 1 0 0 1 1-1h5l2 2h9a1 1 0 0 1 1 1v10a1 1 0 0 1-1 1H4a1 1 0 0 1-1-1z" />
      </svg>
    </span>
  );
}
