/** One file in the upload panel: its name, progress, state (and why it failed), and what can be done. */
import { formatBytes } from '../../components/format';
import { canRetry, cancel, retry } from './queue';
import { displayName, type UploadItem } from './model';

const STATE_LABEL: Record<UploadItem['state'], string> = {
  queued: 'Waiting',
  uploading: 'Uploading',
  pending: 'Uploaded, waiting to be processed',
  processing: 'Processing',
  ready: 'Ready',
  failed: 'Failed',
  cancelled: 'Cancelled',
};

function stateText(item: UploadItem): string {
  if (item.state === 'uploading') return `Uploading ${Math.floor((100 * item.loaded) / Math.max(1, item.size))}%`;
  if (item.state === 'failed') return item.failedAt === 'processing' ? 'Processing failed' : 'Upload failed';
  return STATE_LABEL[item.state];
}

export function UploadRow({ item }: { item: UploadItem }) {
  const name = displayName(item);
  return (
    <li class={`upload-row upload-${item.state}`} data-state={item.state}>
      <div class="upload-row-head">
        <span class="upload-name" title={name}>
          {name}
        </span>
        <span class="upload-size muted">{formatBytes(item.size)}</span>
      </div>
      <progress
        max={Math.max(1, item.size)}
        value={item.mediaId ? item.size : item.state === 'uploading' ? item.loaded : 0}
        aria-label={`${name}: upload progress`}
      />
      <div class="upload-row-foot">
        <span class="upload-state">
          {stateText(item)}
          {item.reason && <span class="upload-reason">: {item.reason}</span>}
        </span>
        {(item.state === 'queued' || item.state === 'uploading') && (
          <button type="button" aria-label={`Cancel ${name}`} onClick={() => cancel(item.key)}>
            Cancel
          </button>
        )}
        {canRetry(item) && (
          <button type="button" aria-label={`Retry ${name}`} onClick={() => void retry(item.key)}>
            Retry
          </button>
        )}
      </div>
    </li>
  );
}
