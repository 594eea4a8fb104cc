/** Switching the organization you work in, for people who belong to several (Account screen). */
import { useState } from 'preact/hooks';
import { api, describeError } from '../lib/api';
import { adoptSession, session, type SessionInfo } from '../lib/session';
import { Alert } from './Alert';

export function OrgSwitcher() {
  const [error, setError] = useState<string | null>(null);
  const info = session.value;
  if (!info || info.organizations.length < 2) return null;
  const change = async (organizationId: string) => {
    try {
      adoptSession(await api<SessionInfo>('POST', '/api/auth/session/organization', { body: { organizationId } }));
      setError(null);
    } catch (err) {
      setError(describeError(err));
    }
  };
  return (
    <section class="account-section" aria-labelledby="org-title">
      <h2 id="org-title">Organization</h2>
      <Alert message={error} />
      <div class="field">
        <label for="org-select">Work in</label>
        <select
          id="org-select"
          value={info.organizationId}
          onChange={(e) => void change((e.currentTarget as HTMLSelectElement).value)}
        >
          {info.organizations.map((o) => (
            <option key={o.id} value={o.id}>
              {o.name} ({o.role})
            </option>
          ))}
        </select>
      </div>
    </section>
  );
}
