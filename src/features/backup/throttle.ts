/**
 * A rate limit in bytes a second for a long read (the bit-rot re-hash): each chunk read is paid for, and
 * the caller waits whenever it got ahead of the rate, so a night-long check leaves the disk to browsing.
 */
export function createThrottle(bytesPerSecond: number, signal?: AbortSignal): (bytes: number) => Promise<void> {
  const started = Date.now();
  let consumed = 0;
  return async (bytes) => {
    consumed += bytes;
    if (!Number.isFinite(bytesPerSecond) || bytesPerSecond <= 0) return;
    const ahead = (consumed / bytesPerSecond) * 1000 - (Date.now() - started);
    if (ahead > 5) await sleep(ahead, signal);
  };
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}
