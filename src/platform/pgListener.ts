import pg from 'pg';
import type { PgDb } from './pgDb.js';

/**
 * This process's ear for NOTIFY: one dedicated connection (outside the pool: a pooled connection goes back
 * to other work, and LISTEN belongs to its session) that LISTENs to every channel someone subscribed to.
 * When the connection breaks (the server restarted, a network cut) it reconnects with a growing delay and
 * then calls every subscriber once, since notifications sent meanwhile were lost; the callers poll as well.
 * In platform/ so that the index packages (warm caches that must hear other processes' writes) can share it.
 */
export interface PgListener {
  /**
   * Calls `fn` with the payload of each notification on `channel` (from any process, this one included), and
   * with '' after a reconnection; returns the unsubscribe.
   */
  on(channel: string, fn: (payload: string) => void): () => void;
  /** Connects and listens; resolves once listening, or once the first try failed (it keeps retrying). */
  start(): Promise<void>;
  /** Closes the connection; no reconnection after. */
  stop(): Promise<void>;
}

export interface PgListenerOptions {
  /** First delay before a reconnection, doubled up to maxRetryMs (defaults 250 ms and 5 s). */
  retryMs?: number;
  maxRetryMs?: number;
  /** Told when the connection breaks or a reconnection fails (for the log). */
  onError?: (err: unknown) => void;
}

const CHANNEL = /^[a-z_][a-z0-9_]*$/;

export function pgListener(db: PgDb, options: PgListenerOptions = {}): PgListener {
  const subscribers = new Map<string, Set<(payload: string) => void>>();
  const firstRetry = options.retryMs ?? 250;
  const maxRetry = options.maxRetryMs ?? 5_000;
  let client: pg.Client | null = null;
  let stopped = false;
  let retryMs = firstRetry;
  let timer: NodeJS.Timeout | null = null;

  const call = (channel: string, payload: string) => {
    for (const fn of [...(subscribers.get(channel) ?? [])]) fn(payload);
  };
  const schedule = () => {
    if (stopped || timer) return;
    timer = setTimeout(() => {
      timer = null;
      void connect(true);
    }, retryMs);
    timer.unref();
    retryMs = Math.min(maxRetry, retryMs * 2);
  };
  const lost = (c: pg.Client, err?: unknown) => {
    if (client !== c) return;
    client = null;
    if (err) options.onError?.(err);
    void c.end().catch(() => {});
    schedule();
  };

  async function connect(again: boolean): Promise<void> {
    if (stopped || client) return;
    const c = new pg.Client({ ...db.pool.options });
    c.on('error', (err) => lost(c, err));
    c.on('end', () => lost(c));
    c.on('notification', (msg) => call(msg.channel, msg.payload ?? ''));
    client = c;
    try {
      await c.connect();
      for (const channel of subscribers.keys()) await c.query(`LISTEN ${channel}`);
      retryMs = firstRetry;
      // Whatever was sent while we were away was lost: every subscriber looks once.
      if (again) for (const channel of subscribers.keys()) call(channel, '');
    } catch (err) {
      lost(c, err);
    }
  }

  return {
    on(channel, fn) {
      if (!CHANNEL.test(channel)) throw new Error(`invalid channel name ${JSON.stringify(channel)}`);
      let set = subscribers.get(channel);
      if (!set) {
        subscribers.set(channel, (set = new Set()));
        void client?.query(`LISTEN ${channel}`).catch((err) => client && lost(client, err));
      }
      set.add(fn);
      return () => void set.delete(fn);
    },
    start: () => connect(false),
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      const c = client;
      client = null;
      await c?.end().catch(() => {});
    },
  };
}
