/**
 * The upload panel, mounted once for every signed-in screen (app.tsx) so uploads go on while the person
 * browses. On a collection's pages it offers Add files / Add folder and takes drops; it lists each file's
 * progress and processing state, overall progress with speed and time left, and announces completions.
 * Idle (nothing queued or to report) it folds away: only its Uploads button stays, shown when focused.
 */
import { useEffect, useState } from 'preact/hooks';
import { location } from '../../lib/router';
import { canWrite } from '../../lib/session';
import { formatBytes, formatDuration } from '../../components/format';
import { announcement, panelExpanded, uploads } from './model';
import { cancelAll, clearFinished } from './queue';
import { startTracking } from './tracking';
import { lostOnReload, startPersisting } from './persist';
import { summarize, type Summary } from './summary';
import { pickerInputs, queueFromInput, targetFor, type UploadTarget } from './index';
import { DropZone } from './DropZone';
import { UploadRow } from './UploadRow';
import './upload.css';

let restored = false;

/** The collection the current URL is inside (/c/:datasetId and its sub-pages), if any. */
function currentCollection(): string | null {
  const m = /^\/c\/([^/]+)/.exec(location.value.path);
  return m ? decodeURIComponent(m[1]) : null;
}

function headline(s: Summary): string {
  if (s.total === 0) return 'No uploads yet: drop files or folders anywhere on this page, or use Upload.';
  const parts = [`${s.uploaded} of ${s.total} uploaded`, `${s.ready} ready`];
  if (s.failed) parts.push(`${s.failed} failed`);
  return parts.join(' · ');
}

function SpeedLine({ s }: { s: Summary }) {
  if (s.sending === 0) return null;
  const rate = s.bytesPerSecond != null ? `${(s.bytesPerSecond / 1e6).toFixed(1)} MB/s` : 'measuring speed…';
  const eta = s.etaSeconds != null ? ` · about ${formatDuration(s.etaSeconds)} left` : '';
  return (
    <p class="upload-speed muted">
      {formatBytes(s.bytesDone)} of {formatBytes(s.bytesTotal)} · {rate}
      {eta}
    </p>
  );
}

function Pickers({ target }: { target: UploadTarget }) {
  return (
    <div class="upload-pickers">
      <input
        ref={(el) => {
          pickerInputs.files = el;
        }}
        id="upload-files"
        class="visually-hidden"
        type="file"
        multiple
        tabIndex={-1}
        aria-label="Choose files to upload"
        onChange={(e) => queueFromInput(e.currentTarget, target)}
      />
      <input
        ref={(el) => {
          pickerInputs.folder = el;
          // Not in Preact's attribute types: set as the DOM property (folder picking; files carry relative paths).
          if (el) el.webkitdirectory = true;
        }}
        id="upload-folder"
        class="visually-hidden"
        type="file"
        multiple
        tabIndex={-1}
        aria-label="Choose a folder to upload"
        onChange={(e) => queueFromInput(e.currentTarget, target)}
      />
      <button type="button" onClick={() => pickerInputs.files?.click()}>
        Add files
      </button>
      <button type="button" onClick={() => pickerInputs.folder?.click()}>
        Add folder
      </button>
    </div>
  );
}

function LostNote() {
  if (!lostOnReload.value) return null;
  const n = lostOnReload.value;
  return (
    <p class="upload-lost" role="status">
      {n} {n === 1 ? 'file had' : 'files had'} not finished uploading when the page was reloaded; add{' '}
      {n === 1 ? 'it' : 'them'} again. Files already uploaded are safe.{' '}
      <button type="button" onClick={() => (lostOnReload.value = 0)}>
        Dismiss
      </button>
    </p>
  );
}

export function UploadPanel(_props: { params?: Record<string, string> }) {
  useEffect(() => {
    if (!restored) startPersisting();
    restored = true;
    startTracking();
  }, []);
  // Idle (nothing queued, nothing to report), the panel is folded away unless the person opened it.
  const [opened, setOpened] = useState(false);
  const idle = uploads.value.length === 0 && !lostOnReload.value;
  useEffect(() => {
    if (!idle) setOpened(false); // Once files come and go, idle folds the panel again.
  }, [idle]);
  const datasetId = canWrite() ? currentCollection() : null;
  const items = uploads.value;
  if (!datasetId && idle) return null;
  const target = datasetId ? targetFor(datasetId, location.value.query.get('path')) : null;
  const s = summarize(items);
  const folded = idle && !opened;
  const expanded = idle ? opened : panelExpanded.value;
  const toggle = () => (idle ? setOpened(!opened) : (panelExpanded.value = !expanded));
  return (
    <section
      class={folded ? 'upload-panel upload-panel-folded' : 'upload-panel'}
      role="region"
      aria-labelledby="upload-title"
    >
      {target && <DropZone target={target} />}
      <div class="upload-head">
        <h2 id="upload-title" class={folded ? 'visually-hidden' : undefined}>
          Uploads
        </h2>
        <button
          type="button"
          class={folded ? 'upload-toggle upload-reveal' : 'upload-toggle'}
          aria-expanded={expanded}
          aria-controls="upload-body"
          aria-describedby="upload-headline"
          onClick={toggle}
        >
          {folded ? 'Uploads' : expanded ? 'Hide' : 'Show'}
        </button>
      </div>
      <p class={folded ? 'visually-hidden' : 'upload-headline'} id="upload-headline">
        {headline(s)}
      </p>
      {s.total > 0 && (
        <progress max={Math.max(1, s.bytesTotal)} value={s.bytesDone} aria-label="Overall upload progress" />
      )}
      <SpeedLine s={s} />
      <div id="upload-body" hidden={!expanded}>
        <LostNote />
        {target && <Pickers target={target} />}
        {target && !idle && <p class="muted upload-hint">Or drop files and folders anywhere on this page.</p>}
        {items.length > 0 && (
          <ul class="upload-list" aria-label="Files">
            {items.map((item) => (
              <UploadRow key={item.key} item={item} />
            ))}
          </ul>
        )}
        <div class="upload-actions">
          {s.sending > 0 && (
            <button type="button" onClick={cancelAll}>
              Cancel all
            </button>
          )}
          {items.some((i) => i.state === 'ready' || i.state === 'cancelled') && (
            <button type="button" onClick={clearFinished}>
              Clear finished
            </button>
          )}
        </div>
      </div>
      <p class="visually-hidden" aria-live="polite">
        {announcement.value}
      </p>
    </section>
  );
}
