/** The panel's headline numbers: files done, bytes sent of the batch, speed and time left. */
import { isAcknowledged, type UploadItem } from './model';
import { RateMeter } from './rate';

export interface Summary {
  total: number;
  /** Acknowledged by the server. */
  uploaded: number;
  ready: number;
  failed: number;
  sending: number;
  bytesDone: number;
  bytesTotal: number;
  bytesPerSecond: number | null;
  etaSeconds: number | null;
}

const meter = new RateMeter();

export function summarize(items: UploadItem[], now = Date.now()): Summary {
  const counted = items.filter((i) => i.state !== 'cancelled');
  let bytesDone = 0;
  let bytesTotal = 0;
  for (const i of counted) {
    if (i.state === 'failed' && i.failedAt === 'upload') continue;
    bytesTotal += i.size;
    bytesDone += isAcknowledged(i) ? i.size : i.state === 'uploading' ? i.loaded : 0;
  }
  const sending = counted.filter((i) => i.state === 'queued' || i.state === 'uploading').length;
  if (sending === 0) meter.reset();
  else meter.sample(bytesDone, now);
  const bytesPerSecond = sending ? meter.rate() : null;
  return {
    total: counted.length,
    uploaded: counted.filter(isAcknowledged).length,
    ready: counted.filter((i) => i.state === 'ready').length,
    failed: counted.filter((i) => i.state === 'failed').length,
    sending,
    bytesDone,
    bytesTotal,
    bytesPerSecond,
    etaSeconds: bytesPerSecond && bytesPerSecond > 0 ? (bytesTotal - bytesDone) / bytesPerSecond : null,
  };
}
