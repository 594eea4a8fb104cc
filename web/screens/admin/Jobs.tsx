/**
 * Jobs (/admin/jobs): queue depth per type and state, the ingest's progress per phase, running jobs with their
 * progress, failed jobs with their reason; retry one or all, pause and resume background work (a fresh upload's
 * first phases keep running). Refreshed every few seconds.
 */
import { useEffect, useState } from 'preact/hooks';
import { api, describeError } from '../../lib/api';
import { useLoad } from '../../components/useLoad';
import { Alert } from '../../components/Alert';
import { formatDate, formatDuration } from '../../components/format';
import { AdminPage } from './AdminPage';

type Counts = Record<'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled', number>;
interface JobRow {
  id: number;
  type: string;
  phase: string;
  mediaName: string;
  attempts: number;
  maxAttempts: number;
  lastError: string | null;
  progress: unknown;
  startedAt: string | null;
  finishedAt: string | null;
}
interface Phase {
  phase: string;
  remaining: number;
  ratePerSecond: number | null;
  etaSeconds: number | null;
}
interface JobsAnswer {
  stats: Counts & { delayed: number; byType: Record<string, Counts> };
  paused: string | null;
  ingest: { phases: Phase[]; remaining: number; etaSeconds: number | null };
  jobs: JobRow[];
}

const STATES = ['queued', 'running', 'failed', 'succeeded', 'cancelled'] as const;
const load = (status: string, signal: AbortSignal) =>
  api<JobsAnswer>('GET', '/api/jobs', { query: { status, limit: 100 }, signal });

/** A job's progress report as a short text (a fraction when it has done and total). */
function progressText(p: unknown): string {
  if (!p || typeof p !== 'object') return '—';
  const { done, total } = p as { done?: number; total?: number };
  if (typeof done === 'number' && typeof total === 'number' && total > 0) return `${done} of ${total}`;
  return JSON.stringify(p).slice(0, 80);
}

function Depth({ stats }: { stats: JobsAnswer['stats'] }) {
  return (
    <table class="data-table">
      <caption class="visually-hidden">Jobs per type and state</caption>
      <thead>
        <tr>
          <th scope="col">Type</th>
          {STATES.map((s) => (
            <th key={s} scope="col">
              {s}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {Object.entries(stats.byType).map(([type, c]) => (
          <tr key={type}>
            <th scope="row">{type}</th>
            {STATES.map((s) => (
              <td key={s}>{c[s]}</td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function Phases({ ingest }: { ingest: JobsAnswer['ingest'] }) {
  return (
    <dl class="admin-figures">
      {ingest.phases.map((p) => (
        <div key={p.phase}>
          <dt>{p.phase}</dt>
          <dd>{p.remaining} left</dd>
          <dd class="muted">
            {p.ratePerSecond ? `${p.ratePerSecond.toFixed(2)}/s` : 'no rate yet'}
            {p.etaSeconds != null && p.remaining > 0 ? `, about ${formatDuration(p.etaSeconds)}` : ''}
          </dd>
        </div>
      ))}
    </dl>
  );
}

function JobTable({ jobs, failed, onRetry }: { jobs: JobRow[]; failed: boolean; onRetry(id: number): void }) {
  if (jobs.length === 0) return <p class="muted">{failed ? 'No failed jobs.' : 'Nothing running.'}</p>;
  return (
    <table class="data-table">
      <thead>
        <tr>
          <th scope="col">Item</th>
          <th scope="col">Phase</th>
          <th scope="col">{failed ? 'Reason' : 'Progress'}</th>
          <th scope="col">Attempts</th>
          <th scope="col">{failed ? 'Failed' : 'Started'}</th>
          {failed && (
            <th scope="col">
              <span class="visually-hidden">Actions</span>
            </th>
          )}
        </tr>
      </thead>
      <tbody>
        {jobs.map((j) => (
          <tr key={j.id}>
            <td>{j.mediaName}</td>
            <td>{j.phase}</td>
            <td>{failed ? (j.lastError ?? '—') : progressText(j.progress)}</td>
            <td>
              {j.attempts} of {j.maxAttempts}
            </td>
            <td>{(failed ? j.finishedAt : j.startedAt) ? formatDate((failed ? j.finishedAt : j.startedAt)!) : '—'}</td>
            {failed && (
              <td>
                <button type="button" aria-label={`Retry ${j.phase} of ${j.mediaName}`} onClick={() => onRetry(j.id)}>
                  Retry
                </button>
              </td>
            )}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function AdminJobs(_props: { params?: Record<string, string> }) {
  const [tick, setTick] = useState(0);
  const running = useLoad((signal) => load('running', signal), [tick]);
  const failed = useLoad((signal) => load('failed', signal), [tick]);
  const [message, setMessage] = useState<{ text: string; error: boolean } | null>(null);
  useEffect(() => {
    const timer = setInterval(() => setTick((t) => t + 1), 3000);
    return () => clearInterval(timer);
  }, []);
  const act = async (path: string, done: (r: Record<string, unknown>) => string) => {
    try {
      setMessage({ text: done(await api<Record<string, unknown>>('POST', path)), error: false });
    } catch (err) {
      setMessage({ text: describeError(err), error: true });
    }
    setTick((t) => t + 1);
  };
  const data = running.data ?? failed.data;
  return (
    <AdminPage title="Jobs">
      <Alert message={running.error ?? failed.error} />
      {message && <Alert message={message.text} kind={message.error ? 'error' : 'ok'} />}
      {data && (
        <section class="account-section" aria-labelledby="queue-title">
          <h2 id="queue-title">Queue</h2>
          <div class="admin-actions">
            <span>
              {data.paused ? `Background work paused since ${formatDate(data.paused)}.` : 'Background work is running.'}
            </span>
            {data.paused ? (
              <button type="button" onClick={() => void act('/api/jobs/resume', () => 'Background work resumed.')}>
                Resume background work
              </button>
            ) : (
              <button
                type="button"
                onClick={() =>
                  void act('/api/jobs/pause', () => 'Paused: new uploads still become searchable; the rest waits.')
                }
              >
                Pause background work
              </button>
            )}
          </div>
          <Phases ingest={data.ingest} />
          <Depth stats={data.stats} />
        </section>
      )}
      <section class="account-section" aria-labelledby="running-title">
        <h2 id="running-title">Running</h2>
        {running.data && <JobTable jobs={running.data.jobs} failed={false} onRetry={() => undefined} />}
      </section>
      <section class="account-section" aria-labelledby="failed-title">
        <h2 id="failed-title">Failed</h2>
        {!!failed.data?.stats.failed && (
          <button
            type="button"
            onClick={() => void act('/api/jobs/retry-failed', (r) => `${r.queued} failed jobs queued again.`)}
          >
            Retry all failed
          </button>
        )}
        {failed.data && (
          <JobTable
            jobs={failed.data.jobs}
            failed
            onRetry={(id) => void act(`/api/jobs/${id}/retry`, () => 'Queued again.')}
          />
        )}
      </section>
    </AdminPage>
  );
}
