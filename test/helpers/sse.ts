/**
 * A small Server-Sent Events client over node:http for the tests of GET /api/events: it keeps every message
 * (and comment) it parsed, lets a test wait for one, and tells when the server ended the stream.
 */
import http from 'node:http';

export interface SseMessage {
  id: string | null;
  event: string;
  data: any;
}

export interface SseClient {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** Every message so far, in order (control messages included). */
  messages: SseMessage[];
  /** Every comment line so far (heartbeats), without the leading colon. */
  comments: string[];
  /** Resolves when the server ends the response (or the socket closes); `error` when it broke off. */
  ended: Promise<{ error: boolean }>;
  /** The body when the answer was not a stream (an error answer). */
  body(): Promise<any>;
  /** Waits until a message matching `match` arrived (looking at those already there first); returns it. */
  waitFor(match: (m: SseMessage) => boolean, timeoutMs?: number, what?: string): Promise<SseMessage>;
  /** Waits until `n` messages matching `match` arrived. */
  waitForCount(match: (m: SseMessage) => boolean, n: number, timeoutMs?: number): Promise<SseMessage[]>;
  close(): void;
}

/** Opens `url` (path and query) on the server with the given headers; resolves once the answer's headers are in. */
export function openSse(baseUrl: string, url: string, headers: Record<string, string>): Promise<SseClient> {
  return new Promise((resolve, reject) => {
    const req = http.get(baseUrl + url, { headers: { accept: 'text/event-stream', ...headers } });
    req.on('error', reject);
    req.on('response', (res) => {
      const messages: SseMessage[] = [];
      const comments: string[] = [];
      const waiters = new Set<() => void>();
      let raw = '';
      let buffer = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        raw += chunk;
        buffer += chunk;
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const m: SseMessage = { id: null, event: 'message', data: null };
          let isMessage = false;
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) {
              comments.push(line.slice(1).trim());
              continue;
            }
            if (line.startsWith('id: ')) m.id = line.slice(4);
            else if (line.startsWith('event: ')) m.event = line.slice(7);
            else if (line.startsWith('data: ')) m.data = JSON.parse(line.slice(6));
            else continue;
            isMessage = true;
          }
          if (isMessage) messages.push(m);
        }
        for (const w of [...waiters]) w();
      });
      const ended = new Promise<{ error: boolean }>((done) => {
        res.on('end', () => done({ error: false }));
        res.on('aborted', () => done({ error: true }));
        res.on('error', () => done({ error: true }));
        res.on('close', () => done({ error: !res.complete }));
      });
      const waitForCount = (match: (m: SseMessage) => boolean, n: number, timeoutMs = 15_000) =>
        new Promise<SseMessage[]>((ok, fail) => {
          const check = () => {
            const found = messages.filter(match);
            if (found.length >= n) {
              waiters.delete(check);
              clearTimeout(timer);
              ok(found);
            }
          };
          const timer = setTimeout(() => {
            waiters.delete(check);
            fail(
              new Error(
                `timed out waiting for ${n} message(s); got ${JSON.stringify(messages.map((x) => [x.id, x.event]))}`,
              ),
            );
          }, timeoutMs);
          waiters.add(check);
          check();
        });
      resolve({
        status: res.statusCode ?? 0,
        headers: res.headers,
        messages,
        comments,
        ended,
        body: async () => {
          await ended;
          return JSON.parse(raw);
        },
        waitFor: async (match, timeoutMs, what) => {
          try {
            return (await waitForCount(match, 1, timeoutMs))[0];
          } catch (err) {
            throw new Error(`${what ?? 'message'}: ${(err as Error).message}`);
          }
        },
        waitForCount,
        close: () => req.destroy(),
      });
    });
  });
}
