/**
 * Search by example from the header's search box, in a collection: drop an image on the box, paste one into
 * it, or choose a file with the camera button. The image stays in this tab (example.ts).
 */
import { useState } from 'preact/hooks';
import { location, match } from '../../lib/router';
import { imageOf, searchByExample } from './example';
import './example.css';

/** The collection the page is in (its browse, search or duplicates screen), or null. */
export function currentCollection(): string | null {
  const path = location.value.path;
  const m =
    match('/c/:datasetId', path) ?? match('/c/:datasetId/search', path) ?? match('/c/:datasetId/duplicates', path);
  return m?.datasetId ?? null;
}

/** Drop and paste handlers for the search form: an image dropped or pasted searches by example. */
export function exampleDrop() {
  const datasetId = currentCollection();
  if (!datasetId) return {};
  const take = (files: FileList | null | undefined, e: Event) => {
    const file = imageOf(files);
    if (!file) return;
    e.preventDefault();
    e.stopPropagation(); // not an upload: the page's drop zone (screens/upload) must not queue it
    void searchByExample(file, datasetId);
  };
  return {
    onDragOver: (e: DragEvent) => {
      if (e.dataTransfer?.types.includes('Files')) e.preventDefault();
    },
    onDrop: (e: DragEvent) => take(e.dataTransfer?.files, e),
    onPaste: (e: ClipboardEvent) => take(e.clipboardData?.files, e),
  };
}

export function ExamplePicker() {
  const datasetId = currentCollection();
  const [busy, setBusy] = useState(false);
  if (!datasetId) return null;
  return (
    <label class="example-picker" title="Search by image: choose, drop or paste a picture">
      {busy ? <span aria-hidden="true">…</span> : <PictureIcon />}
      <span class="visually-hidden">Search by image</span>
      <input
        type="file"
        accept="image/*"
        class="visually-hidden"
        onChange={(e) => {
          const file = imageOf(e.currentTarget.files);
          e.currentTarget.value = '';
          if (!file) return;
          setBusy(true);
          void searchByExample(file, datasetId).finally(() => setBusy(false));
        }}
      />
    </label>
  );
}

/** A small picture glyph (a frame with a hill and a sun), drawn inline: no external asset. */
function PictureIcon() {
  return (
    <svg
      width="18"
      height="18"
      viewBox="0 0 24 24"
      aria-hidden="true"
      fill="none"
      stroke="currentColor"
      stroke-width="2"
    >
      <rect x="3" y="4" width="18" height="16" rx="2" />
      <circle cx="9" cy="10" r="2" />
      <path d="M4 19l6-6 4 4 3-3 4 4" />
    </svg>
  );
}
