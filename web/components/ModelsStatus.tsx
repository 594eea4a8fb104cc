/**
 * A one-line status of the local AI models from `/healthz` (Collections screen): the profile, how many are
 * loaded, and the background download's progress while one runs (refreshed every few seconds then).
 */
import { useEffect, useState } from 'preact/hooks';
import { formatBytes, formatDuration } from './format';

interface Health {
  status: string;
  models?: {
    profile: string;
    loaded: Array<{ name: string }>;
    fetch?: {
      state: string;
      reason?: string;
      model: string | null;
      bytesDone: number;
      bytesTotal: number | null;
      etaSeconds: number | null;
      queued: number;
      failed: string[];
    };
  };
}

/** The sentence for a health answer. */
export function modelsLine(health: Health): string {
  const m = health.models;
  if (!m) return 'Models: status unknown';
  const parts = [`Models: ${m.profile} profile, ${m.loaded.length} loaded`];
  const f = m.fetch;
  if (f?.state === 'downloading' && f.model) {
    const pct = f.bytesTotal ? ` ${Math.floor((100 * f.bytesDone) / f.bytesTotal)}%` : ` ${formatBytes(f.bytesDone)}`;
    const eta = f.etaSeconds != null ? `, about ${formatDuration(f.etaSeconds)} left` : '';
    parts.push(`downloading ${f.model}${pct}${eta}${f.queued ? ` (${f.queued} more queued)` : ''}`);
  } else if (f?.state === 'waiting') parts.push('download paused after a network error, retrying');
  else if (f?.state === 'off' && f.reason) parts.push(`downloads off: ${f.reason}`);
  if (f?.failed.length) parts.push(`failed: ${f.failed.join(', ')}`);
  return parts.join(' · ');
}

export function ModelsStatus() {
  const [health, setHealth] = useState<Health | null>(null);
  const [error, setError] = useState(false);
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    let stopped = false;
    const poll = async () => {
      try {
        const h = (await (await fetch('/healthz', { headers: { accept: 'application/json' } })).json()) as Health;
        if (stopped) return;
        setHealth(h);
        setError(false);
        const busy = h.models?.fetch?.state === 'downloading' || h.models?.fetch?.state === 'queued';
        if (busy) timer = setTimeout(() => void poll(), 3000);
      } catch {
        if (!stopped) setError(true);
      }
    };
    void poll();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, []);
  if (error) return <p class="models-status muted">Models: the server did not answer.</p>;
  if (!health) return null;
  return (
    <p class="models-status muted" role="status">
      {modelsLine(health)}
    </p>
  );
}
