/**
 * Client-side routes over the History API. Every screen has a real URL (reload and share work); the
 * server answers index.html for any GET outside /api, /files and /healthz.
 */
import { signal } from '@preact/signals';

export interface Location {
  path: string;
  query: URLSearchParams;
}

const read = (): Location => ({ path: window.location.pathname, query: new URLSearchParams(window.location.search) });

/** The current location; screens read it and re-render when it changes. */
export const location = signal<Location>(read());

window.addEventListener('popstate', () => (location.value = read()));

/** Goes to a URL inside the app (a new history entry unless `replace`). */
export function navigate(url: string, options: { replace?: boolean } = {}): void {
  if (options.replace) window.history.replaceState(null, '', url);
  else window.history.pushState(null, '', url);
  location.value = read();
}

/** Matches `/m/:mediaId`-style patterns; returns the named parts or null. */
export function match(pattern: string, path: string): Record<string, string> | null {
  const want = pattern.split('/');
  const got = path.split('/');
  if (want.length !== got.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i++) {
    if (want[i].startsWith(':')) params[want[i].slice(1)] = decodeURIComponent(got[i]);
    else if (want[i] !== got[i]) return null;
  }
  return params;
}

/** A click handler for in-app links: plain clicks navigate without a page load; modified clicks open normally. */
export function followLink(event: MouseEvent): void {
  const anchor = (event.currentTarget as HTMLAnchorElement | null) ?? null;
  if (!anchor || event.defaultPrevented || event.button !== 0) return;
  if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
  event.preventDefault();
  navigate(anchor.getAttribute('href') ?? '/');
}
