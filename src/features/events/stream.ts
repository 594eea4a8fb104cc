import { PassThrough } from 'node:stream';
import type { Logger } from '../../platform/logger.js';
import type { EventStore } from '../../storage/storage.js';
import { formatEvent, formatHeartbeat } from './format.js';

/** Events read from the log at a time. */
const PAGE = 200;

/** What one stream reads: an organization's events, item events of one collection only when set. */
export interface StreamScope {
  organizationId: string;
  collectionId: string | null;
}

/**
 * One client's stream of GET /api/events. It keeps a cursor, the last id it sent, and whenever it is woken
 * reads the log after that cursor until it has caught up: replay after a reconnect and live delivery are the
 * same loop, so nothing is missed or sent twice whatever order wake-ups and appends come in. A client that
 * reads slowly holds the loop (it waits for the socket to drain) instead of piling events up in memory.
 */
export class EventStream {
  /** The SSE text; the route hands it to Koa as the response body. */
  readonly out = new PassThrough();
  private pumping: Promise<void> | null = null;
  private again = false;
  private closed = false;
  private readonly heartbeat: NodeJS.Timeout;

  constructor(
    private readonly store: EventStore,
    private readonly scope: StreamScope,
    private cursor: number,
    heartbeatMs: number,
    private readonly logger: Logger,
  ) {
    // Writes after the client left are dropped (see send); an error here must not become an uncaught one.
    this.out.on('error', () => undefined);
    this.out.on('close', () => this.dispose());
    this.heartbeat = setInterval(() => this.send(formatHeartbeat()), heartbeatMs);
    this.heartbeat.unref();
  }

  /** Sends `preamble` (the stream's first messages), then what the log holds after the cursor. */
  start(preamble: string): void {
    this.send(preamble);
    this.wake();
  }

  /** Calls `fn` once the stream is over: the client went, or end() was called. */
  onClose(fn: () => void): void {
    if (this.closed) fn();
    else this.out.once('close', fn);
  }

  /** Reads and sends what was appended after the cursor (coalesced: one read loop at a time). */
  wake(): void {
    if (this.closed) return;
    if (this.pumping) {
      this.again = true;
      return;
    }
    this.pumping = this.pump()
      .catch((err) => {
        this.logger.warn('event stream failed', { err });
        this.end();
      })
      .finally(() => {
        this.pumping = null;
        if (this.again) {
          this.again = false;
          this.wake();
        }
      });
  }

  /** Sends a message that is not in the log (no id: the cursor stays), e.g. the disk's state. */
  notice(text: string): void {
    this.send(text);
  }

  /** Ends the stream cleanly (the response completes): shutdown. */
  end(): void {
    if (this.closed) return;
    this.dispose();
    this.out.end();
  }

  private async pump(): Promise<void> {
    for (;;) {
      const page = await this.store.after({ ...this.scope, afterId: this.cursor, limit: PAGE });
      for (const event of page) {
        if (this.closed) return;
        this.cursor = event.id;
        if (!this.send(formatEvent(event))) await this.drained();
      }
      if (page.length < PAGE) return;
    }
  }

  /** Writes unless the stream is over; false when the client should be let catch up first. */
  private send(text: string): boolean {
    if (this.closed || this.out.destroyed) return true;
    return this.out.write(text);
  }

  private drained(): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        this.out.off('drain', done);
        this.out.off('close', done);
        resolve();
      };
      this.out.on('drain', done);
      this.out.on('close', done);
    });
  }

  private dispose(): void {
    this.closed = true;
    clearInterval(this.heartbeat);
  }
}
