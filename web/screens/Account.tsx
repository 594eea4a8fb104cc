/**
 * Your account (/account): who you are, the organization you work in, your password, your signed-in
 * devices and, for admins and owners, invitations.
 */
import { useState } from 'preact/hooks';
import { isAdmin, session } from '../lib/session';
import { OrgSwitcher } from '../components/OrgSwitcher';
import { PasswordForm } from '../components/PasswordForm';
import { SessionList } from '../components/SessionList';
import { InviteManager } from '../components/InviteManager';
import '../components/account.css';

export function Account(_props: { params?: Record<string, string> }) {
  const info = session.value;
  const [sessionsVersion, setSessionsVersion] = useState(0);
  if (!info) return null;
  const org = info.organizations.find((o) => o.id === info.organizationId);
  return (
    <div class="account-page">
      <h1>Account</h1>
      <dl class="auth-facts">
        <dt>Name</dt>
        <dd>{info.user.name || '—'}</dd>
        <dt>Email</dt>
        <dd>{info.user.email}</dd>
        <dt>Organization</dt>
        <dd>{org?.name ?? info.organizationId}</dd>
        <dt>Role</dt>
        <dd>{info.role}</dd>
      </dl>
      <OrgSwitcher />
      <PasswordForm onChanged={() => setSessionsVersion((v) => v + 1)} />
      <SessionList key={sessionsVersion} />
      {isAdmin() && <InviteManager />}
    </div>
  );
}
