/**
 * A stand-in Hugging Face hub on 127.0.0.1 (port 0) for the background model
 * download: serves `/<repo>/resolve/main/<file>` from memory, throttled so
 * progress can be watched, with `Range: bytes=N-` support; records every request.
 */
import { createHash, randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { requiredFiles } from '../../../src/models/archs.js';

export interface HubRequest {
  url: string;
  range: string | null;
  remote: string;
  /** Body bytes written before the answer ended or the client went away. */
  sent: number;
}

export interface FakeHub {
  url: string;
  files: Map<string, Buffer>;
  requests: HubRequest[];
  /** Bytes per chunk and pause between chunks (ms): the throttle. */
  throttle: { chunk: number; pauseMs: number };
  close(): Promise<void>;
}

export async function startFakeHub(files: Map<string, Buffer>): Promise<FakeHub> {
  const requests: HubRequest[] = [];
  const throttle = { chunk: 16 * 1024, pauseMs: 0 };
  const server = http.createServer((req, res) => {
    const record: HubRequest = {
      url: req.url ?? '',
      range: req.headers.range ?? null,
      remote: req.socket.remoteAddress ?? '',
      sent: 0,
    };
    requests.push(record);
    const m = /^\/(.+?\/.+?)\/resolve\/main\/(.+)$/.exec(record.url);
    const body = m ? files.get(`${m[1]}/${m[2]}`) : undefined;
    if (!body) return void res.writeHead(404).end('not found');
    const range = /^bytes=(\d+)-$/.exec(record.range ?? '');
    const start = range ? Number(range[1]) : 0;
    if (start >= body.length && range)
      return void res.writeHead(416, { 'content-range': `bytes */${body.length}` }).end();
    const part = body.subarray(start);
    res.writeHead(range ? 206 : 200, {
      'content-length': part.length,
      ...(range ? { 'content-range': `bytes ${start}-${body.length - 1}/${body.length}` } : {}),
    });
    let offset = 0;
    let gone = false;
    res.on('close', () => (gone = true));
    const next = () => {
      if (gone) return;
      if (offset >= part.length) return void res.end();
      const chunk = part.subarray(offset, offset + throttle.chunk);
      offset += chunk.length;
      record.sent += chunk.length;
      res.write(chunk);
      setTimeout(next, throttle.pauseMs);
    };
    next();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    files,
    requests,
    throttle,
    async close() {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}

export const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/**
 * The stand-in files of two small models: `tiny-embed` (a CLIP layout, two ONNX files of `onnxBytes`)
 * and `tiny-matte` (a MODNet layout), keyed `<repo>/<path>`.
 */
export function tinyModelFiles(onnxBytes: number): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  for (const f of requiredFiles('clip', 'fp32'))
    files.set(`fake/tiny-embed/${f}`, f.endsWith('.onnx') ? randomBytes(onnxBytes) : Buffer.from(`{"file":"${f}"}`));
  for (const f of requiredFiles('modnet', 'fp32'))
    files.set(`fake/tiny-matte/${f}`, f.endsWith('.onnx') ? randomBytes(onnxBytes / 4) : Buffer.from('{}'));
  return files;
}

/**
 * Writes `<modelsDir>/catalog.local.json`: the default profile uses tiny-embed (embed) and tiny-matte
 * (removeBackground) and nothing else. `matteSha256` pins tiny-matte's ONNX file (a wrong one makes it refused).
 */
export function writeTinyCatalog(modelsDir: string, matteSha256: string | null = null): void {
  const none = {
    embedFast: null,
    caption: null,
    prompt: null,
    detect: null,
    detectFaces: null,
    embedFaces: null,
    ocr: null,
    upscale: null,
    generate: null,
  };
  const catalog = {
    version: 1,
    roles: { default: { ...none, embed: 'tiny-embed', removeBackground: 'tiny-matte' } },
    models: [
      {
        name: 'tiny-embed',
        task: 'embed',
        arch: 'clip',
        repo: 'fake/tiny-embed',
        dims: 8,
        licence: 'MIT',
        approxSizeMB: 1,
      },
      {
        name: 'tiny-matte',
        task: 'remove-background',
        arch: 'modnet',
        repo: 'fake/tiny-matte',
        licence: 'Apache-2.0',
        approxSizeMB: 0.1,
        files: requiredFiles('modnet', 'fp32').map((p) => ({
          path: p,
          sha256: p.endsWith('.onnx') ? matteSha256 : null,
        })),
      },
    ],
  };
  writeFileSync(path.join(modelsDir, 'catalog.local.json'), JSON.stringify(catalog, null, 2));
}
