/**
 * Jobs (/admin/jobs): queue depth per type and state with each type's rate and ETA, the ingest's progress per phase,
 * running jobs of every type with their progress (rate and ETA where the job says how far of how much), failed jobs
 * of every type with their reason; retry one or all, pause and resume background work (a fresh upload's
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
  scope: { kind: 'item' | 'collection' | 'organization' | 'server'; name: string | null };
  figures: { done: number; total: number; ratePerSecond: number | null; etaSeconds: number | null } | null;
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
type Depth = Counts & { type: string; ratePerSecond: number | null; etaSeconds: number | null };
interface JobsAnswer {
  stats: Counts & { delayed: number; byType: Record<string, Counts> };
  types: Depth[];
  paused: string | null;
  ingest: { phases: Phase[]; remaining: number; etaSeconds: number | null };
  jobs: JobRow[];
}

const STATES = ['queued', 'running', 'failed', 'succeeded', 'cancelled'] as const;
const load = (status: string, signal: AbortSignal) =>
  api<JobsAnswer>('GET', '/api/jobs', { query: { status, limit: 100 }, signal });

const rateText = (rate: number | null) => (rate ? `${rate >= 10 ? Math.round(rate) : rate.toFixed(2)}/s` : '—');
const etaText = (eta: number | null, left: number) => (left === 0 ? '—' : eta != null ? formatDuration(eta) : '—');

/** A job's progress as a short text: how far of how much, how fast, how long still; else what it reported. */
function progressText(j: JobRow): string {
  const f = j.figures;
  if (f) {
    const rate = f.ratePerSecond ? `, ${rateText(f.ratePerSecond)}` : '';
    const eta = f.etaSeconds != null && f.done < f.total ? `, about ${formatDuration(f.etaSeconds)} left` : '';
    return `${f.done} of ${f.total}${rate}${eta}`;
  }
  if (!j.progress || typeof j.progress !== 'object') return '—';
  return JSON.stringify(j.progress).slice(0, 80);
}

/** What a job works on, in words. */
const subjectOf = (j: JobRow) =>
  j.scope.name ??
  (j.scope.kind === 'organization' ? 'the organization' : j.scope.kind === 'server' ? 'the server' : '—');

function Depth({ types }: { types: Depth[] }) {
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
          <th scope="col">Rate</th>
          <th scope="col">Time left</th>
        </tr>
      </thead>
      <tbody>
        {types.map((c) => (
          <tr key={c.type}>
            <th scope="row">{c.type}</th>
            {STATES.map((s) => (
              <td key={s}>{c[s]}</td>
            ))}
            <td>{rateText(c.ratePerSecond)}</td>
            <td>{etaText(c.etaSeconds, c.queued + c.running)}</td>
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
          <th scope="col">Job</th>
          <th scope="col">Of</th>
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
            <td>{j.phase}</td>
            <td>{subjectOf(j)}</td>
            <td>{failed ? (j.lastError ?? '—') : progressText(j)}</td>
            <td>
              {j.attempts} of {j.maxAttempts}
            </td>
            <td>{(failed ? j.finishedAt : j.startedAt) ? formatDate((failed ? j.finishedAt : j.startedAt)!) : '—'}</td>
            {failed && (
              <td>
                <button type="button" aria-label={`Retry ${j.phase} of ${subjectOf(j)}`} onClick={() => onRetry(j.id)}>
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
          <Depth types={data.types} />
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
