/**
 * Sends one file to `POST /api/upload/multipart` with XMLHttpRequest, the only browser API that reports
 * upload progress (fetch has none). Resolves with the server's acknowledgement; rejects with an ApiError
 * carrying the server's `{error, message}`, or an Error for a network failure or an abort.
 */
import { ApiError, csrfToken } from '../../lib/api';

/** The part of the upload answer the panel reads. */
export interface UploadAck {
  mediaId: string;
  media: { processingStatus?: string; processingError?: string | null; analysis?: Record<string, string> };
}

export interface SendOptions {
  datasetId: string;
  /** The ltree path of the folder to upload into; the collection root when absent. */
  path?: string;
  file: File;
  signal: AbortSignal;
  onProgress(loaded: number, total: number): void;
}

function failure(xhr: XMLHttpRequest): ApiError {
  let body: Record<string, unknown> = {};
  try {
    body = JSON.parse(xhr.responseText) as Record<string, unknown>;
  } catch {
    // Not JSON (a proxy's error page): the status text says enough.
  }
  const message = typeof body.message === 'string' ? body.message : xhr.statusText || `HTTP ${xhr.status}`;
  const code = typeof body.error === 'string' ? body.error : `http_${xhr.status}`;
  return new ApiError(xhr.status, code, message, body);
}

export function sendFile(options: SendOptions): Promise<UploadAck> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    const form = new FormData();
    form.append('datasetId', options.datasetId);
    if (options.path) form.append('path', options.path);
    form.append('name', options.file.name);
    form.append('file', options.file, options.file.name);
    xhr.open('POST', '/api/upload/multipart');
    xhr.setRequestHeader('accept', 'application/json');
    if (csrfToken.value) xhr.setRequestHeader('x-csrf-token', csrfToken.value);
    xhr.upload.onprogress = (e) => options.onProgress(e.loaded, e.lengthComputable ? e.total : options.file.size);
    xhr.onload = () => {
      if (xhr.status < 200 || xhr.status >= 300) return reject(failure(xhr));
      try {
        resolve(JSON.parse(xhr.responseText) as UploadAck);
      } catch {
        reject(new Error('the server answered something that is not JSON'));
      }
    };
    xhr.onerror = () => reject(new Error('network error: the connection to the server was lost'));
    xhr.onabort = () => reject(new DOMException('cancelled', 'AbortError'));
    if (options.signal.aborted) return reject(new DOMException('cancelled', 'AbortError'));
    options.signal.addEventListener('abort', () => xhr.abort(), { once: true });
    xhr.send(form);
  });
}
