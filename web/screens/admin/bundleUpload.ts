/**
 * Sends a model bundle to `POST /api/models/import` with XMLHttpRequest (the only browser API that reports upload
 * progress). Resolves with the server's answer; rejects with an ApiError carrying its `{error, message}`.
 */
import { ApiError, csrfToken } from '../../lib/api';

export interface Imported {
  models: Array<{ name: string; files: number; bytes: number }>;
}

export function sendBundle(file: File, onProgress: (loaded: number, total: number) => void): Promise<Imported> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    const form = new FormData();
    form.append('file', file, file.name);
    xhr.open('POST', '/api/models/import');
    xhr.setRequestHeader('accept', 'application/json');
    if (csrfToken.value) xhr.setRequestHeader('x-csrf-token', csrfToken.value);
    xhr.upload.onprogress = (e) => onProgress(e.loaded, e.lengthComputable ? e.total : file.size);
    xhr.onload = () => {
      let body: Record<string, unknown> = {};
      try {
        body = JSON.parse(xhr.responseText) as Record<string, unknown>;
      } catch {
        // Not JSON (a proxy's error page): the status says enough.
      }
      if (xhr.status >= 200 && xhr.status < 300) return resolve(body as unknown as Imported);
      const message = typeof body.message === 'string' ? body.message : xhr.statusText || `HTTP ${xhr.status}`;
      reject(new ApiError(xhr.status, typeof body.error === 'string' ? body.error : `http_${xhr.status}`, message));
    };
    xhr.onerror = () => reject(new Error('network error: the connection to the server was lost'));
    xhr.send(form);
  });
}
