/**
 * Write requests in flight in this process, by the user they authenticated as, so that a change of a member's
 * role or membership is answered only once every write that member started before it has finished: a write
 * that authenticated with the old role never lands after the change was answered. Writes that authenticate
 * after the change read the new membership (sessions and write requests never use remembered keys).
 *
 * Another process on the same PostgreSQL database (ROLE=api replicas) keeps its own gate: there the promise
 * holds for the writes that process handles, and the membership read of its next write sees the change.
 */
import type { Context } from 'koa';

interface Entry {
  /** Resolves with the caller's user id once authenticated (null: refused). */
  identified: Promise<string | null>;
  identify(userId: string | null): void;
  done: Promise<void>;
  end(): void;
}

const inFlight = new Set<Entry>();
const STATE_KEY = 'writeGateEntry';

/** Registers a write request before it authenticates; `identify` once the caller is known, `endWrite` at its end. */
export function beginWrite(ctx: Context): Entry {
  let identify!: (userId: string | null) => void;
  let end!: () => void;
  const entry: Entry = {
    identified: new Promise((r) => (identify = r)),
    identify: (userId) => identify(userId),
    done: new Promise((r) => (end = r)),
    end: () => {
      identify(null);
      end();
      inFlight.delete(entry);
    },
  };
  inFlight.add(entry);
  ctx.state[STATE_KEY] = entry;
  return entry;
}

/** Ends the request's entry, if it has one (idempotent). */
export function endWrite(ctx: Context): void {
  (ctx.state[STATE_KEY] as Entry | undefined)?.end();
}

/**
 * Resolves once every write request in flight now that is (or turns out to be) `userId`'s has finished,
 * except the calling request itself.
 */
export async function writesSettled(ctx: Context, userId: string): Promise<void> {
  const self = ctx.state[STATE_KEY] as Entry | undefined;
  const others = [...inFlight].filter((e) => e !== self);
  await Promise.all(
    others.map(async (e) => {
      if ((await e.identified) === userId) await e.done;
    }),
  );
}
