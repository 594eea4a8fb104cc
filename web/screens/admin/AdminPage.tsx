/**
 * The frame of every administration screen (/admin/...): a heading, the tabs between the screens and,
 * for anyone below admin, a refusal instead of the screen (the API refuses them anyway).
 */
import type { ComponentChildren } from 'preact';
import { followLink, location } from '../../lib/router';
import { isAdmin } from '../../lib/session';
import '../../components/account.css';
import './admin.css';

export const ADMIN_SCREENS: Array<[string, string]> = [
  ['/admin/people', 'People'],
  ['/admin/keys', 'API keys'],
  ['/admin/jobs', 'Jobs'],
  ['/admin/models', 'Models'],
  ['/admin/storage', 'Storage'],
  ['/admin/backups', 'Backups'],
];

export function AdminPage({ title, children }: { title: string; children: ComponentChildren }) {
  const path = location.value.path;
  return (
    <div class="admin-page">
      <nav class="admin-tabs" aria-label="Administration">
        {ADMIN_SCREENS.map(([href, label]) => (
          <a key={href} href={href} onClick={followLink} aria-current={path === href ? 'page' : undefined}>
            {label}
          </a>
        ))}
      </nav>
      <h1>{title}</h1>
      {isAdmin() ? children : <p class="alert alert-error">Only admins and owners can see this page.</p>}
    </div>
  );
}
