/**
 * The full-disk banner across the app (issue #29): while the server pauses background work for want of space
 * (`ingest.paused` on the event stream, sent again to every stream opened during the pause) it says how much is
 * free and that work resumes by itself; `ingest.resumed` takes it away.
 */
import { useEffect, useState } from 'preact/hooks';
import { subscribe, type DiskPauseEvent } from '../lib/events';
import { formatBytes } from './format';
import './disk-banner.css';

export function DiskBanner() {
  const [paused, setPaused] = useState<DiskPauseEvent | null>(null);
  useEffect(() => {
    const offPaused = subscribe('ingest.paused', (e) => setPaused(e));
    const offResumed = subscribe('ingest.resumed', () => setPaused(null));
    return () => {
      offPaused();
      offResumed();
    };
  }, []);
  if (!paused) return null;
  const free = paused.freeBytes === null ? 'little space is' : `only ${formatBytes(paused.freeBytes)} is`;
  return (
    <div class="disk-banner" role="status">
      <strong>The server's disk is full.</strong>
      {` New uploads may be refused and processing is paused: ${free} free, and the server keeps `}
      {`${formatBytes(paused.minFreeBytes)} free (MIN_FREE_BYTES). Work resumes by itself once space is freed.`}
    </div>
  );
}
