/**
 * The item's processing state (overall and per analysis stage) and, for people who may change things, a
 * Reprocess button (POST /api/media/:id/reprocess). While the item is queued or processing the viewer
 * polls it and reloads when it settles.
 */
import { useEffect, useState } from 'preact/hooks';
import { api, describeError } from '../../lib/api';
import type { MediaItem } from './types';

/** States in which the viewer keeps polling. */
export const busy = (status: string | undefined) =>
  status === 'pending' || status === 'processing' || status === 'queued';

export function Reprocess(props: { media: MediaItem; canWrite: boolean; onStarted: () => void; onPoll: () => void }) {
  const { media } = props;
  const [message, setMessage] = useState('');
  const working = busy(media.processingStatus);
  useEffect(() => {
    if (!working) return;
    const timer = window.setInterval(props.onPoll, 700);
    return () => window.clearInterval(timer);
  }, [working, media.id]);
  const start = async () => {
    try {
      await api('POST', `/api/media/${encodeURIComponent(media.id)}/reprocess`);
      setMessage('Queued for analysis.');
      props.onStarted();
    } catch (err) {
      setMessage(`Could not reprocess: ${describeError(err)}`);
    }
  };
  const stages = Object.entries(media.analysis ?? {});
  return (
    <section class="viewer-section" aria-labelledby="processing-title">
      <h2 id="processing-title">Analysis</h2>
      <p>
        State: <strong class="processing-status">{media.processingStatus ?? 'unknown'}</strong>
        {media.processingError && <span class="error"> — {media.processingError}</span>}
      </p>
      {stages.length > 0 && (
        <ul class="stage-list">
          {stages.map(([stage, state]) => (
            <li key={stage}>
              {stage}: <span class="muted">{state}</span>
            </li>
          ))}
        </ul>
      )}
      {props.canWrite && (
        <button type="button" onClick={() => void start()} disabled={working}>
          Reprocess
        </button>
      )}{' '}
      <span class="muted" role="status">
        {message}
      </span>
    </section>
  );
}
