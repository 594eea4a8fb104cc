/**
 * The upload queue: files wait their turn and at most MAX_PARALLEL are sent at a time (more would only
 * split the same bandwidth and hold more server scratch space). Folders are created before the files that
 * go into them. Once the server acknowledges a file it is the tracker's (tracking.ts) until ready.
 */
import { ApiError, api, describeError, onUnauthenticated } from '../../lib/api';
import type { PickedFile } from './entries';
import { ensureFolder } from './folders';
import { sendFile, type UploadAck } from './send';
import { displayName, itemByKey, updateItem, uploads, announcement, type UploadItem } from './model';
import { noteStatus } from './tracking';

/** Files sent at the same time. */
export const MAX_PARALLEL = 3;

const files = new Map<string, File>();
const inFlight = new Map<string, AbortController>();
let counter = 0;

/** Adds picked files to the queue, aimed at `folderPath` (an ltree path; the root when undefined). */
export function enqueue(datasetId: string, folderPath: string | undefined, picked: PickedFile[]): void {
  const added: UploadItem[] = picked.map(({ file, dirs }) => {
    const key = `u${Date.now().toString(36)}-${counter++}`;
    files.set(key, file);
    return {
      key,
      datasetId,
      name: file.name,
      dirs,
      baseFolder: folderPath,
      size: file.size,
      loaded: 0,
      state: 'queued',
      reason: null,
      mediaId: null,
      failedAt: null,
    };
  });
  uploads.value = [...uploads.value, ...added];
  pump();
}

function pump(): void {
  let active = uploads.value.filter((i) => i.state === 'uploading').length;
  for (const item of uploads.value) {
    if (active >= MAX_PARALLEL) break;
    if (item.state !== 'queued') continue;
    active++;
    void start(item);
  }
}

function acknowledged(item: UploadItem, ack: UploadAck): void {
  const status = ack.media.processingStatus ?? 'pending';
  updateItem(item.key, { loaded: item.size, mediaId: ack.mediaId, state: 'pending', reason: null });
  files.delete(item.key);
  noteStatus(ack.mediaId, status, ack.media.processingError ?? null, true);
}

function failedUpload(item: UploadItem, err: unknown): void {
  const aborted = err instanceof DOMException && err.name === 'AbortError';
  if (aborted) return updateItem(item.key, { state: 'cancelled', loaded: 0, reason: null });
  // The session ended while sending (signed out elsewhere, expired): the app shows sign-in, as for any request.
  if (err instanceof ApiError && err.status === 401) onUnauthenticated.handler();
  const reason = err instanceof ApiError ? err.message : describeError(err);
  updateItem(item.key, { state: 'failed', failedAt: 'upload', reason });
  announcement.value = `${displayName(item)} failed: ${reason}`;
}

async function start(item: UploadItem): Promise<void> {
  const file = files.get(item.key);
  if (!file) return updateItem(item.key, { state: 'failed', failedAt: 'upload', reason: 'the file is gone' });
  const abort = new AbortController();
  inFlight.set(item.key, abort);
  updateItem(item.key, { state: 'uploading', loaded: 0, reason: null, failedAt: null });
  try {
    const path = await ensureFolder(item.datasetId, item.baseFolder, item.dirs);
    if (abort.signal.aborted) throw new DOMException('cancelled', 'AbortError');
    const ack = await sendFile({
      datasetId: item.datasetId,
      path,
      file,
      signal: abort.signal,
      onProgress: (loaded) => updateItem(item.key, { loaded }),
    });
    acknowledged(item, ack);
  } catch (err) {
    failedUpload(item, err);
  } finally {
    inFlight.delete(item.key);
    pump();
  }
}

/** Stops a file that is waiting or being sent (an acknowledged one is the server's already). */
export function cancel(key: string): void {
  const item = itemByKey(key);
  if (!item) return;
  if (item.state === 'queued') updateItem(key, { state: 'cancelled' });
  inFlight.get(key)?.abort();
}

/** Stops everything not yet acknowledged. */
export function cancelAll(): void {
  for (const item of uploads.value) cancel(item.key);
}

/** Sends a failed or cancelled file again, or asks the server to process a failed item again. */
export async function retry(key: string): Promise<void> {
  const item = itemByKey(key);
  if (!item) return;
  if (item.failedAt === 'processing' && item.mediaId) {
    updateItem(key, { state: 'pending', reason: null, failedAt: null });
    try {
      await api('POST', `/api/media/${encodeURIComponent(item.mediaId)}/reprocess`);
    } catch (err) {
      updateItem(key, { state: 'failed', failedAt: 'processing', reason: describeError(err) });
    }
    return;
  }
  if (!files.has(key)) return updateItem(key, { reason: 'the file is no longer available: add it again' });
  updateItem(key, { state: 'queued', loaded: 0, reason: null, failedAt: null });
  pump();
}

/** True when Retry can do something for this item. */
export const canRetry = (item: UploadItem): boolean =>
  (item.state === 'failed' || item.state === 'cancelled') &&
  (item.failedAt === 'processing' ? !!item.mediaId : files.has(item.key));

/** Removes finished items (ready, cancelled) from the list. */
export function clearFinished(): void {
  uploads.value = uploads.value.filter((i) => i.state !== 'ready' && i.state !== 'cancelled');
  for (const key of [...files.keys()]) if (!itemByKey(key)) files.delete(key);
}
