/** Your signed-in devices (Account screen): where and when each session was used; end any other one. */
import { useState } from 'preact/hooks';
import { api, describeError } from '../lib/api';
import { useLoad } from './useLoad';
import { Alert } from './Alert';
import { formatDate } from './format';

interface SessionRow {
  id: string;
  createdAt: string;
  lastSeenAt: string | null;
  expiresAt: string;
  userAgent: string | null;
  ip: string | null;
  current: boolean;
}

/** "Chrome on Linux" from a user agent string (rough, for people to recognise their device). */
export function deviceName(userAgent: string | null): string {
  if (!userAgent) return 'Unknown device';
  const browser = /Edg\//.test(userAgent)
    ? 'Edge'
    : /Firefox\//.test(userAgent)
      ? 'Firefox'
      : /Chrom(e|ium)\//.test(userAgent)
        ? 'Chrome'
        : /Safari\//.test(userAgent)
          ? 'Safari'
          : null;
  const os = /Android/.test(userAgent)
    ? 'Android'
    : /iPhone|iPad/.test(userAgent)
      ? 'iOS'
      : /Windows/.test(userAgent)
        ? 'Windows'
        : /Mac OS X/.test(userAgent)
          ? 'macOS'
          : /Linux/.test(userAgent)
            ? 'Linux'
            : null;
  if (browser && os) return `${browser} on ${os}`;
  return browser ?? os ?? userAgent.slice(0, 60);
}

export function SessionList() {
  const sessions = useLoad(
    (signal) => api<{ sessions: SessionRow[] }>('GET', '/api/auth/sessions', { signal }).then((r) => r.sessions),
    [],
  );
  const [error, setError] = useState<string | null>(null);
  const end = async (id: string) => {
    try {
      await api('DELETE', `/api/auth/sessions/${encodeURIComponent(id)}`);
      setError(null);
      sessions.reload();
    } catch (err) {
      setError(describeError(err));
    }
  };
  return (
    <section class="account-section" aria-labelledby="sessions-title">
      <h2 id="sessions-title">Signed-in devices</h2>
      <Alert message={error ?? sessions.error} />
      {sessions.loading && !sessions.data && <p role="status">Loading sessions…</p>}
      {sessions.data && (
        <table class="data-table">
          <thead>
            <tr>
              <th scope="col">Device</th>
              <th scope="col">IP address</th>
              <th scope="col">Signed in</th>
              <th scope="col">Last seen</th>
              <th scope="col">
                <span class="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {sessions.data.map((s) => (
              <tr key={s.id}>
                <td title={s.userAgent ?? undefined}>{deviceName(s.userAgent)}</td>
                <td>{s.ip ?? '—'}</td>
                <td>{formatDate(s.createdAt)}</td>
                <td>{s.lastSeenAt ? formatDate(s.lastSeenAt) : '—'}</td>
                <td>
                  {s.current ? (
                    <strong>This device</strong>
                  ) : (
                    <button
                      type="button"
                      class="danger"
                      aria-label={`End session on ${deviceName(s.userAgent)} from ${s.ip ?? 'unknown address'}`}
                      onClick={() => void end(s.id)}
                    >
                      End session
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
