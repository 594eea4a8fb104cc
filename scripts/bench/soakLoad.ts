/**
 * The soak bench's clients: autocannon for the plain requests (one instance per route, so each route has its
 * own latency histogram), upload loops over fetch (every acknowledged upload remembered with its checksum),
 * and event-stream clients that hold `GET /api/events` open for the whole run.
 */
import { createHash, randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import autocannon from 'autocannon';
import sharp from 'sharp';
import { stats, type Stats } from './harness.js';
import { SOAK_KEY } from './soakServer.js';

export interface RouteLoad {
  id: string;
  label: string;
  requests: autocannon.Request[];
  /** Requests per second across the route's connections under load (a fixed mix, not saturation). */
  rate: number;
  connections: number;
}

export interface Outcome {
  stats: Stats;
  served: number;
  /** What went wrong, e.g. "status 500 ×2", "timeouts ×1"; empty when nothing did. */
  errors: string[];
}

const headers = { 'x-api-key': SOAK_KEY, 'content-type': 'application/json' };

/** Runs one route for `seconds`: idle = one connection back to back; load = the route's rate and connections. */
export async function cannon(baseUrl: string, route: RouteLoad, seconds: number, idle: boolean): Promise<Outcome> {
  const latencies: number[] = [];
  // The callback form returns the instance (its 'response' events); the promise form would not.
  let done!: (r: autocannon.Result) => void;
  let failed!: (err: Error) => void;
  const finished = new Promise<autocannon.Result>((res, rej) => ((done = res), (failed = rej)));
  const instance = autocannon(
    {
      url: baseUrl,
      headers,
      requests: route.requests,
      duration: seconds,
      connections: idle ? 1 : route.connections,
      ...(idle ? {} : { overallRate: route.rate }),
      timeout: 30,
    },
    (err, result) => (err ? failed(err) : done(result)),
  );
  // Each response's own time (ms, sub-millisecond), not the histogram's whole milliseconds, and without the
  // coordinated-omission samples autocannon adds at a fixed rate: n is what was answered.
  instance.on('response', (_client: unknown, _status: number, _bytes: number, ms: number) => latencies.push(ms));
  const r = await finished;
  const errors: string[] = [];
  for (const [code, s] of Object.entries(r.statusCodeStats ?? {}))
    if (!code.startsWith('2') && s.count) errors.push(`status ${code} ×${s.count}`);
  if (r.timeouts) errors.push(`timeouts ×${r.timeouts}`);
  if (r.errors - r.timeouts > 0) errors.push(`connection errors ×${r.errors - r.timeouts}`);
  return { stats: stats(latencies), served: r['2xx'], errors };
}

/** A JPEG of noise, and a way to make each upload's bytes unique (a comment segment right after SOI). */
export async function noiseJpeg(width: number, height: number): Promise<Buffer> {
  const raw = randomBytes(width * height * 3);
  return sharp(raw, { raw: { width, height, channels: 3 } })
    .jpeg({ quality: 80 })
    .toBuffer();
}
function unique(jpeg: Buffer, tag: string): Buffer {
  const text = Buffer.from(tag, 'utf8');
  const seg = Buffer.alloc(4);
  seg.writeUInt16BE(0xfffe, 0);
  seg.writeUInt16BE(text.length + 2, 2);
  return Buffer.concat([jpeg.subarray(0, 2), seg, text, jpeg.subarray(2)]);
}

export interface Acked {
  mediaId: string;
  sha256: string;
  bytes: number;
}

export async function upload(baseUrl: string, datasetId: string, bytes: Buffer, name: string): Promise<string> {
  const form = new FormData();
  form.append('datasetId', datasetId);
  form.append('name', name);
  form.append('file', new Blob([bytes], { type: 'image/jpeg' }), name);
  const res = await fetch(`${baseUrl}/api/upload/multipart`, {
    method: 'POST',
    headers: { 'x-api-key': SOAK_KEY },
    body: form,
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`status ${res.status}: ${text.slice(0, 200)}`);
  return (JSON.parse(text) as { mediaId: string }).mediaId;
}

export interface UploadPlan {
  baseUrl: string;
  datasetId: string;
  /** Photos each upload copies (made unique by a comment segment). */
  base: Buffer[];
  clients: number;
  pauseMs: number;
  /** performance.now() to stop at; `count` stops after that many uploads instead (or first). */
  until: number;
  count?: number;
}

/** `clients` upload loops until `until` (performance.now()), each pausing `pauseMs` between uploads. */
export async function uploadLoops(o: UploadPlan, acked: Acked[]): Promise<Outcome> {
  const latencies: number[] = [];
  const errors = new Map<string, number>();
  let seq = 0;
  const loop = async (client: number) => {
    while (performance.now() < o.until && (o.count === undefined || seq < o.count)) {
      const i = seq++;
      const bytes = unique(o.base[i % o.base.length], `soak ${client} ${i} ${randomBytes(6).toString('hex')}`);
      const name = `SOAK_${String(i).padStart(6, '0')}.jpg`;
      const t0 = performance.now();
      try {
        const mediaId = await upload(o.baseUrl, o.datasetId, bytes, name);
        latencies.push(performance.now() - t0);
        acked.push({ mediaId, sha256: createHash('sha256').update(bytes).digest('hex'), bytes: bytes.length });
      } catch (err) {
        const key = `upload ${(err as Error).message.split(':')[0]}`;
        errors.set(key, (errors.get(key) ?? 0) + 1);
      }
      if (o.pauseMs) await sleep(o.pauseMs);
    }
  };
  await Promise.all(Array.from({ length: o.clients }, (_, c) => loop(c)));
  return {
    stats: stats(latencies),
    served: latencies.length,
    errors: [...errors].map(([k, n]) => `${k} ×${n}`),
  };
}

/** Opens `GET /api/events` and resolves once `stream.open` arrives, with the time it took; the stream stays open. */
async function openStream(baseUrl: string, signal: AbortSignal) {
  const t0 = performance.now();
  const res = await fetch(`${baseUrl}/api/events`, { headers: { 'x-api-key': SOAK_KEY }, signal });
  if (res.status !== 200) throw new Error(`events status ${res.status}`);
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buffered = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) throw new Error('events stream ended before stream.open');
    buffered += decoder.decode(value, { stream: true });
    if (buffered.includes('event: stream.open')) return { ms: performance.now() - t0, reader, decoder, buffered };
  }
}

export interface HeldStreams {
  /** Closes every stream; resolves with the events each received and anything that went wrong. */
  close(): Promise<{ events: number[]; errors: string[] }>;
}

/** `n` clients, each holding the event stream open until close(); a stream that ends early is an error. */
export async function holdStreams(baseUrl: string, n: number): Promise<HeldStreams> {
  const ctl = new AbortController();
  const events = new Array<number>(n).fill(0);
  const errors: string[] = [];
  const opened = await Promise.all(Array.from({ length: n }, () => openStream(baseUrl, ctl.signal)));
  const reading = opened.map(async (s, i) => {
    try {
      for (;;) {
        const { value, done } = await s.reader.read();
        if (done) return void errors.push(`event stream ${i} ended by the server`);
        events[i] += (s.decoder.decode(value, { stream: true }).match(/^event: /gm) ?? []).length;
      }
    } catch (err) {
      if (!ctl.signal.aborted) errors.push(`event stream ${i}: ${(err as Error).message}`);
    }
  });
  return {
    async close() {
      ctl.abort();
      await Promise.all(reading);
      return { events, errors };
    },
  };
}

/** Opens a stream, waits for `stream.open`, closes it; again every `everyMs` until `until`. */
export async function streamProbes(baseUrl: string, everyMs: number, until: number): Promise<Outcome> {
  const latencies: number[] = [];
  const errors = new Map<string, number>();
  while (performance.now() < until) {
    const ctl = new AbortController();
    try {
      latencies.push((await openStream(baseUrl, ctl.signal)).ms);
    } catch (err) {
      const key = (err as Error).message;
      errors.set(key, (errors.get(key) ?? 0) + 1);
    } finally {
      ctl.abort();
    }
    await sleep(everyMs);
  }
  return { stats: stats(latencies), served: latencies.length, errors: [...errors].map(([k, n]) => `${k} ×${n}`) };
}
