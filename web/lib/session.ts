/**
 * Who is signed in, from `GET /api/auth/session` (a cookie session). `undefined` while loading,
 * `null` when signed out.
 */
import { signal } from '@preact/signals';
import { api, ApiError, csrfToken, onUnauthenticated } from './api';

export interface SessionInfo {
  user: { id: string; email: string; name: string };
  organizationId: string;
  role: 'owner' | 'admin' | 'member' | 'viewer';
  organizations: Array<{ id: string; name: string; slug: string; role: string }>;
  csrfToken: string;
}

export const session = signal<SessionInfo | null | undefined>(undefined);

/** Adopts a session body (from sign-in, setup, invite acceptance or a reload). */
export function adoptSession(info: SessionInfo | null): void {
  csrfToken.value = info?.csrfToken ?? null;
  session.value = info;
}

/** Reads the current session; a 401 means signed out. */
export async function loadSession(): Promise<void> {
  try {
    adoptSession(await api<SessionInfo>('GET', '/api/auth/session'));
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) adoptSession(null);
    else throw err;
  }
}

export async function signOut(): Promise<void> {
  await api('POST', '/api/auth/logout').catch(() => undefined);
  adoptSession(null);
}

/** True when the signed-in person may change things (not a viewer). */
export const canWrite = (): boolean => !!session.value && session.value.role !== 'viewer';
/** True for admins and owners (folders, invites, keys). */
export const isAdmin = (): boolean => session.value?.role === 'owner' || session.value?.role === 'admin';

onUnauthenticated.handler = () => adoptSession(null);
