/**
 * One album (/c/:datasetId/albums/:albumId): its items in its order, a page at a time; members rename,
 * reorder, set the cover, take items out, delete it, and share it (a link with a password, expiry, …).
 */
import { useState } from 'preact/hooks';
import { api, describeError } from '../../lib/api';
import { followLink, location, navigate } from '../../lib/router';
import { canWrite } from '../../lib/session';
import { Alert } from '../../components/Alert';
import { MediaThumb, type ThumbFields } from '../../components/MediaThumb';
import { useLoad } from '../../components/useLoad';
import { ShareDialog } from '../share/ShareDialog';
import { ShareLinks } from '../share/ShareLinks';
import type { Album } from './albumApi';
import './albums.css';

type Item = ThumbFields & { id: string };
interface Page {
  album: Album;
  media: Item[];
  pagination: { total: number; hasMore: boolean };
}
const PAGE = 60;

export function AlbumView({ params }: { params: Record<string, string> }) {
  const { datasetId, albumId } = params;
  const [limit, setLimit] = useState(PAGE);
  const [error, setError] = useState<string | null>(null);
  const [sharing, setSharing] = useState(false);
  const [links, setLinks] = useState(0);
  const loaded = useLoad(
    (signal) => api<Page>('GET', `/api/albums/${encodeURIComponent(albumId)}/media`, { query: { limit }, signal }),
    [albumId, limit],
  );
  const base = `/c/${encodeURIComponent(datasetId)}/albums`;
  const here = location.value.path;
  const change = async (method: 'POST' | 'PUT' | 'PATCH' | 'DELETE', path: string, body?: unknown) => {
    try {
      await api(method, `/api/albums/${encodeURIComponent(albumId)}${path}`, { body });
      setError(null);
      if (method === 'DELETE') navigate(base);
      else loaded.reload();
    } catch (err) {
      setError(describeError(err));
    }
  };
  if (loaded.error && !loaded.data)
    return (
      <div class="empty-state" role="alert">
        <p>This album could not be opened: {loaded.error}</p>
        <a href={base} onClick={followLink}>
          All albums
        </a>
      </div>
    );
  const page = loaded.data;
  if (!page)
    return (
      <p class="loading" role="status">
        Loading the album…
      </p>
    );
  const items = page.media;
  const move = (i: number, delta: number) => {
    const order = items.map((m) => m.id);
    const [id] = order.splice(i, 1);
    order.splice(i + delta, 0, id);
    void change('PUT', '/order', { mediaIds: order });
  };
  const rename = () => {
    const name = window.prompt('Album name', page.album.name)?.trim();
    if (name) void change('PATCH', '', { name });
  };
  return (
    <div class="albums album-view">
      <div class="albums-head">
        <h1>{page.album.name}</h1>
        <a href={base} onClick={followLink}>
          All albums
        </a>
        {canWrite() && (
          <div class="album-actions">
            <button type="button" class="primary" onClick={() => setSharing(true)}>
              Share
            </button>
            <button type="button" onClick={rename}>
              Rename
            </button>
            <button
              type="button"
              onClick={() =>
                window.confirm('Delete this album? Its items stay where they are.') && change('DELETE', '')
              }
            >
              Delete album
            </button>
          </div>
        )}
      </div>
      <p class="muted" role="status">
        {page.pagination.total} {page.pagination.total === 1 ? 'item' : 'items'}
      </p>
      <Alert message={error} />
      <AlbumGrid
        album={page.album}
        items={items}
        here={here}
        onMove={move}
        onChange={(method, path, body) => void change(method, path, body)}
      />
      {page.pagination.hasMore && (
        <button type="button" onClick={() => setLimit((l) => l + PAGE)}>
          Show more
        </button>
      )}
      {canWrite() && <ShareLinks datasetId={datasetId} targetId={albumId} version={links} />}
      {sharing && (
        <ShareDialog
          datasetId={datasetId}
          target={{ kind: 'album', albumId, name: page.album.name }}
          onClose={() => setSharing(false)}
          onCreated={() => setLinks((n) => n + 1)}
        />
      )}
    </div>
  );
}

/** The album's items with, for members, their buttons: earlier, later, cover, remove. */
function AlbumGrid(props: {
  album: Album;
  items: Item[];
  here: string;
  onMove(i: number, delta: number): void;
  onChange(method: 'POST' | 'PATCH', path: string, body: unknown): void;
}) {
  const { album, items, here, onMove, onChange } = props;
  return (
    <ol class="album-grid" aria-label={`Items of ${album.name}`}>
      {items.map((m, i) => (
        <li key={m.id} class={album.coverMediaId === m.id ? 'album-item is-cover' : 'album-item'}>
          <a href={`/m/${encodeURIComponent(m.id)}?from=${encodeURIComponent(here)}`} onClick={followLink}>
            <MediaThumb item={m} />
            <span class="album-item-name">{m.name}</span>
          </a>
          {canWrite() && (
            <div class="album-item-actions">
              <button
                type="button"
                disabled={i === 0}
                onClick={() => onMove(i, -1)}
                aria-label={`Move ${m.name} earlier`}
              >
                ←
              </button>
              <button
                type="button"
                disabled={i === items.length - 1}
                onClick={() => onMove(i, 1)}
                aria-label={`Move ${m.name} later`}
              >
                →
              </button>
              <button
                type="button"
                onClick={() => onChange('PATCH', '', { coverMediaId: m.id })}
                aria-label={`Make ${m.name} the cover`}
              >
                Cover
              </button>
              <button
                type="button"
                onClick={() => onChange('POST', '/items/remove', { mediaIds: [m.id] })}
                aria-label={`Remove ${m.name} from the album`}
              >
                Remove
              </button>
            </div>
          )}
        </li>
      ))}
    </ol>
  );
}
