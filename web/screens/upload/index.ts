/**
 * The upload feature's public API for other screens (browse calls these; nothing else is shared):
 *
 * - `openUploadPicker(datasetId, folderPath?, kind?)`: opens the system file (or folder) picker and queues
 *   what the person chooses into that folder. Call it from a click handler (browsers open pickers only in
 *   answer to a user gesture).
 * - `setUploadFolder(datasetId, folderPath?)`: tells the panel which folder the person is looking at, so
 *   files dropped on the page and the panel's own buttons go there (default: the collection root, or the
 *   `?path=` of the URL).
 *
 * `folderPath` is a folder's ltree `path` as the API returns it; undefined means the collection root.
 */
import { signal } from '@preact/signals';
import { fromFileList } from './entries';
import { enqueue } from './queue';
import { panelExpanded } from './model';

export interface UploadTarget {
  datasetId: string;
  folderPath?: string;
}

/** The folder the browse screen shows (set by setUploadFolder). */
export const uploadTarget = signal<UploadTarget | null>(null);

/** Where uploads go when the person is on /c/:datasetId: the folder browse reported, else `?path=`, else the root. */
export function targetFor(datasetId: string, queryPath: string | null): UploadTarget {
  const t = uploadTarget.value;
  if (t && t.datasetId === datasetId) return t;
  return { datasetId, folderPath: queryPath || undefined };
}

export function setUploadFolder(datasetId: string, folderPath?: string): void {
  uploadTarget.value = { datasetId, folderPath };
}

/** Inputs the mounted panel registered (so tests and assistive tech find real labelled inputs). */
export const pickerInputs: { files: HTMLInputElement | null; folder: HTMLInputElement | null } = {
  files: null,
  folder: null,
};

/** Queues files chosen in a picker input into the current target. */
export function queueFromInput(input: HTMLInputElement, target: UploadTarget): void {
  if (!input.files || input.files.length === 0) return;
  enqueue(target.datasetId, target.folderPath, fromFileList(input.files));
  panelExpanded.value = true;
  input.value = '';
}

export function openUploadPicker(datasetId: string, folderPath?: string, kind: 'files' | 'folder' = 'files'): void {
  setUploadFolder(datasetId, folderPath);
  const mounted = pickerInputs[kind];
  if (mounted) return mounted.click();
  // No panel mounted (it always is on signed-in screens): a detached input works the same.
  const input = document.createElement('input');
  input.type = 'file';
  input.multiple = true;
  input.webkitdirectory = kind === 'folder';
  input.addEventListener('change', () => queueFromInput(input, { datasetId, folderPath }), { once: true });
  input.click();
}
