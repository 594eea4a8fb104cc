/**
 * The items of each month, loaded on demand: a month's first request asks for FIRST_CHUNK items (a jump shows
 * tiles after one small request by date range), later ones for CHUNK more, in order, so a month's loaded items
 * are always its newest ones. `version` changes whenever items arrive.
 */
import { signal } from '@preact/signals';
import { describeError } from '../../lib/api';
import { fetchMonth, type TimelineItem, type TimelineScope } from './timelineApi';

const FIRST_CHUNK = 120;
const CHUNK = 500;
const NONE: TimelineItem[] = [];

export class MonthStore {
  readonly version = signal(0);
  private readonly items = new Map<string, TimelineItem[]>();
  private readonly busy = new Set<string>();
  private readonly failed = new Map<string, string>();
  private readonly abort = new AbortController();

  constructor(private readonly scope: TimelineScope) {}

  get(month: string): TimelineItem[] {
    return this.items.get(month) ?? NONE;
  }

  /** Why the month's last request failed (null: it did not). */
  error(month: string): string | null {
    return this.failed.get(month) || null;
  }

  /** Asks for the month's next items unless all `count` are here, a request is on its way, or the last failed. */
  want(month: string, count: number): void {
    const have = this.get(month);
    if (have.length >= count || this.busy.has(month) || this.failed.has(month) || this.abort.signal.aborted) return;
    this.busy.add(month);
    const limit = have.length === 0 ? FIRST_CHUNK : CHUNK;
    fetchMonth(this.scope, month, have.length, limit, this.abort.signal).then(
      (page) => {
        this.busy.delete(month);
        this.items.set(month, [...this.get(month), ...page.media]);
        // A month that lost items meanwhile (deleted elsewhere) stops at what it has: no more requests.
        if (page.media.length < limit) this.failed.set(month, '');
        this.version.value++;
      },
      (err) => {
        this.busy.delete(month);
        if (this.abort.signal.aborted) return;
        this.failed.set(month, describeError(err));
        this.version.value++;
      },
    );
  }

  /** Forgets a month's failure so it is asked for again. */
  retry(month: string): void {
    this.failed.delete(month);
    this.version.value++;
  }

  close(): void {
    this.abort.abort();
  }
}
