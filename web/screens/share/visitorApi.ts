/**
 * The visitor's calls (/api/share/:token/…): plain fetches, no account session, no CSRF header. The share
 * session cookie the server sets after the password is sent by the browser to this link's routes only.
 */
import { ApiError } from '../../lib/api';

export interface SharedItem {
  id: string;
  name: string;
  type: 'image' | 'video';
  width: number | null;
  height: number | null;
  takenAt: string | null;
  thumbnailUrl: string | null;
  previewUrl: string | null;
  playbackUrl: string | null;
  downloadUrl: string | null;
}

export interface ShareInfo {
  name: string;
  kind: 'album' | 'folder' | 'selection';
  canDownload: boolean;
  canUpload: boolean;
  expiresAt: string | null;
  organizationName: string | null;
}

export interface SharedPage {
  media: SharedItem[];
  pagination: { total: number; hasMore: boolean };
}

export function shareCall<T>(token: string, method: 'GET' | 'POST', path = '', body?: BodyInit | object): Promise<T> {
  const isForm = body instanceof FormData;
  return fetch(`/api/share/${encodeURIComponent(token)}${path}`, {
    method,
    credentials: 'same-origin',
    headers: body && !isForm ? { 'content-type': 'application/json', accept: 'application/json' } : {},
    body: body === undefined ? undefined : isForm ? body : JSON.stringify(body),
  }).then(async (res) => {
    const parsed = (await res.json().catch(() => null)) as Record<string, unknown> | null;
    if (!res.ok)
      throw new ApiError(res.status, String(parsed?.error ?? res.status), String(parsed?.message ?? res.statusText));
    return parsed as T;
  });
}
