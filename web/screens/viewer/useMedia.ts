/** Loads one item (GET /api/media/:id) for the viewer, with a reload for after corrections and reprocessing. */
import { useCallback, useEffect, useState } from 'preact/hooks';
import { describeError } from '../../lib/api';
import { loadMedia } from './mediaCache';
import type { MediaItem } from './types';

export interface MediaState {
  media: MediaItem | null;
  error: string | null;
  /** Reads the item again (keeps showing the old copy meanwhile). */
  reload: () => void;
  /** Replaces the shown copy (after a write that answered with the item). */
  setMedia: (m: MediaItem) => void;
}

export function useMedia(mediaId: string): MediaState {
  const [media, setMedia] = useState<MediaItem | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [round, setRound] = useState(0);
  useEffect(() => {
    setMedia((m) => (m?.id === mediaId ? m : null));
    setError(null);
    const abort = new AbortController();
    loadMedia(mediaId, abort.signal).then(
      (r) =>
        setMedia({ ...r.media, frames: [...r.media.frames].sort((a, b) => Number(a.timestamp) - Number(b.timestamp)) }),
      (err) => !abort.signal.aborted && setError(describeError(err)),
    );
    return () => abort.abort();
  }, [mediaId, round]);
  const reload = useCallback(() => setRound((n) => n + 1), []);
  return { media, error, reload, setMedia };
}
