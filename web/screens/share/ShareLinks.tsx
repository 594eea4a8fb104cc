/** A collection's share links (or one album's): name, state, view count, and Revoke. */
import { useState } from 'preact/hooks';
import { api, describeError } from '../../lib/api';
import { Alert } from '../../components/Alert';
import { useLoad } from '../../components/useLoad';
import { formatDate } from '../../components/format';
import { listLinks, type ShareLinkInfo } from '../albums/albumApi';
import './share.css';

export function ShareLinks(props: { datasetId: string; targetId?: string; version?: number }) {
  const loaded = useLoad((signal) => listLinks(props.datasetId, signal), [props.datasetId, props.version]);
  const [error, setError] = useState<string | null>(null);
  const links = (loaded.data?.links ?? []).filter((l) => !props.targetId || l.targetId === props.targetId);
  const revoke = async (link: ShareLinkInfo) => {
    if (!window.confirm(`Revoke “${link.name}”? Its visitors lose access at once.`)) return;
    try {
      await api('DELETE', `/api/share-links/${encodeURIComponent(link.id)}`);
      setError(null);
      loaded.reload();
    } catch (err) {
      setError(describeError(err));
    }
  };
  return (
    <section class="share-links" aria-labelledby="share-links-title">
      <h2 id="share-links-title">Share links</h2>
      <Alert message={loaded.error ?? error} />
      {links.length === 0 && !loaded.loading ? <p class="muted">No share links yet.</p> : null}
      <ul>
        {links.map((l) => (
          <li key={l.id} class={`share-link share-${l.state}`}>
            <span class="share-link-name">{l.name}</span>
            <span class="muted">
              {l.kind} · {l.state}
              {l.hasPassword ? ' · password' : ''}
              {l.expiresAt ? ` · expires ${formatDate(l.expiresAt)}` : ''}
              {l.canDownload ? ' · download' : ''}
              {l.canUpload ? ' · uploads' : ''}
            </span>
            <span class="share-views">
              {l.viewCount} {l.viewCount === 1 ? 'view' : 'views'}
            </span>
            {l.state !== 'revoked' && (
              <button type="button" onClick={() => void revoke(l)} aria-label={`Revoke ${l.name}`}>
                Revoke
              </button>
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}
