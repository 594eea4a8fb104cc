/**
 * The item's versions (the original and its edits, GET /api/media/:id/versions): open one, or make it the
 * current one (PATCH /api/media/:id/select-version).
 */
import { useEffect, useState } from 'preact/hooks';
import { api, apiUrl, describeError } from '../../lib/api';
import { followLink } from '../../lib/router';
import type { MediaItem } from './types';

export function Versions(props: { media: MediaItem; from: string | null; canWrite: boolean; onChanged: () => void }) {
  const { media } = props;
  const [versions, setVersions] = useState<MediaItem[] | null>(null);
  const [message, setMessage] = useState('');
  useEffect(() => {
    if (media.totalVersions <= 1) return setVersions(null);
    api<{ versions: MediaItem[] }>('GET', `/api/media/${encodeURIComponent(media.id)}/versions`)
      .then((r) => setVersions(r.versions))
      .catch((err) => setMessage(describeError(err)));
  }, [media.id, media.totalVersions]);
  if (media.totalVersions <= 1) return null;
  const select = async (id: string) => {
    try {
      await api('PATCH', `/api/media/${encodeURIComponent(id)}/select-version`);
      setMessage('Current version changed.');
      props.onChanged();
    } catch (err) {
      setMessage(describeError(err));
    }
  };
  return (
    <section class="viewer-section" aria-labelledby="versions-title">
      <h2 id="versions-title">Versions ({media.totalVersions})</h2>
      <ol class="version-list">
        {(versions ?? []).map((v, i) => (
          <li key={v.id}>
            <a
              href={apiUrl(`/m/${encodeURIComponent(v.id)}`, { from: props.from ?? undefined })}
              onClick={followLink}
              aria-current={v.id === media.id ? 'page' : undefined}
            >
              {i === 0 ? 'Original' : `Version ${i + 1}`} · {new Date(v.createdAt).toLocaleString()}
            </a>
            {v.isCurrentVersion ? (
              <span class="muted"> (current)</span>
            ) : (
              props.canWrite && (
                <button type="button" onClick={() => void select(v.id)}>
                  Make current
                </button>
              )
            )}
          </li>
        ))}
      </ol>
      <p class="muted" role="status">
        {message}
      </p>
    </section>
  );
}
