import http from 'node:http';
import type { Duplex } from 'node:stream';

/** What Node's parser refuses, by its error code: the status and the message a client reads. */
const REFUSALS: Record<string, { status: number; reason: string; message: string }> = {
  HPE_HEADER_OVERFLOW: {
    status: 431,
    reason: 'Request Header Fields Too Large',
    message: `the request line and headers are over ${http.maxHeaderSize} bytes`,
  },
  ERR_HTTP_REQUEST_TIMEOUT: {
    status: 408,
    reason: 'Request Timeout',
    message: 'the request headers did not arrive in time',
  },
};

const MALFORMED = { status: 400, reason: 'Bad Request', message: 'the request is not valid HTTP/1.1' };

/**
 * Answers the requests Node's HTTP parser refuses before any route sees them (a URL or headers over
 * `http.maxHeaderSize`, a malformed request line, headers too slow) with the same `{error, message}` JSON body
 * every other refusal has. Node's default answer is a bare status line, which clients show as an empty error.
 */
export function answerParserRefusals(server: http.Server): void {
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    // A peer that reset or half-sent its request is gone: there is no one to answer.
    if (err.code === 'ECONNRESET' || !socket.writable) return void socket.destroy();
    const refusal = REFUSALS[err.code ?? ''] ?? MALFORMED;
    const body = JSON.stringify({ error: refusal.reason, message: refusal.message });
    socket.end(
      `HTTP/1.1 ${refusal.status} ${refusal.reason}\r\n` +
        'Content-Type: application/json; charset=utf-8\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        'Connection: close\r\n\r\n' +
        body,
    );
  });
}
