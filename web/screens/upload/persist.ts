/**
 * What survives a reload of the page: the acknowledged items still being processed (the server holds
 * them, so the panel can keep showing their progress), and how many files had not been acknowledged (their
 * bytes lived only in this page: the panel says so, and they must be added again). sessionStorage: per tab.
 */
import { effect, signal } from '@preact/signals';
import { isSending, uploads, type UploadItem } from './model';

const KEY = 'lumen.uploads.v1';

interface Saved {
  items: UploadItem[];
  /** Files still waiting or being sent when the page was left. */
  notAcknowledged: number;
}

/** Files lost by the last reload (shown once in the panel until dismissed). */
export const lostOnReload = signal(0);

function read(): Saved | null {
  try {
    const raw = sessionStorage.getItem(KEY);
    return raw ? (JSON.parse(raw) as Saved) : null;
  } catch {
    return null;
  }
}

/** Restores the saved items into the queue (call once, before anything is added) and keeps saving. */
export function startPersisting(): void {
  const saved = read();
  if (saved) {
    uploads.value = [...saved.items, ...uploads.value];
    lostOnReload.value = saved.notAcknowledged;
  }
  let last = '';
  effect(() => {
    const items = uploads.value;
    const keep = items.filter((i) => !!i.mediaId && i.state !== 'ready');
    const data = JSON.stringify({ items: keep, notAcknowledged: items.filter(isSending).length } satisfies Saved);
    if (data === last) return;
    last = data;
    try {
      sessionStorage.setItem(KEY, data);
    } catch {
      // Storage full or refused (private mode): a reload then forgets the list, nothing else breaks.
    }
  });
}
