/** The upload queue's items: what the panel shows for each file, from picked to ready. */
import { signal } from '@preact/signals';

/**
 * queued → uploading → (acknowledged by the server) pending → processing → ready, or failed at either
 * step; cancelled when the person stops it before the server acknowledged it.
 */
export type UploadState = 'queued' | 'uploading' | 'pending' | 'processing' | 'ready' | 'failed' | 'cancelled';

export interface UploadItem {
  key: string;
  datasetId: string;
  name: string;
  /** Folders (outermost first) below `baseFolder` the file goes into. */
  dirs: string[];
  /** The ltree path of the folder the upload was aimed at; the collection root when undefined. */
  baseFolder: string | undefined;
  size: number;
  /** Bytes sent so far. */
  loaded: number;
  state: UploadState;
  /** Why it failed, or what processing waits for (e.g. a model being downloaded). */
  reason: string | null;
  /** Set once the server acknowledged the upload. */
  mediaId: string | null;
  /** Where it failed: Retry sends the file again ('upload') or asks the server to process it again ('processing'). */
  failedAt: 'upload' | 'processing' | null;
}

/** Every item of this page's queue (and the acknowledged ones restored after a reload). */
export const uploads = signal<UploadItem[]>([]);

/** The latest sentence for the panel's live region (completions and failures). */
export const announcement = signal('');

/** Whether the panel's list is shown. */
export const panelExpanded = signal(true);

/** True once the server acknowledged the upload (it holds the file, whatever its processing does). */
export const isAcknowledged = (i: UploadItem): boolean => !!i.mediaId;

/** True while the server still works on an acknowledged item. */
export const isProcessing = (i: UploadItem): boolean =>
  !!i.mediaId && (i.state === 'pending' || i.state === 'processing');

/** True while the browser still has work to do for the item (sending or waiting to send). */
export const isSending = (i: UploadItem): boolean => i.state === 'queued' || i.state === 'uploading';

export function updateItem(key: string, patch: Partial<UploadItem>): void {
  uploads.value = uploads.value.map((i) => (i.key === key ? { ...i, ...patch } : i));
}

export function itemByKey(key: string): UploadItem | undefined {
  return uploads.value.find((i) => i.key === key);
}

/** Folder and file name as people see it: "Trip/Day 1/photo.jpg". */
export const displayName = (i: UploadItem): string => [...i.dirs, i.name].join('/');
