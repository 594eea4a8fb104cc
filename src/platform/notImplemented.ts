/**
 * A placeholder for a PostgreSQL store or index not written yet: every method call rejects with a clear
 * error. Removed once every part of Storage has its PostgreSQL implementation.
 */
export function notImplemented<T extends object>(part: string): T {
  return new Proxy({} as T, {
    get: (_target, prop) =>
      prop === 'then'
        ? undefined
        : () => Promise.reject(new Error(`PostgreSQL ${part}.${String(prop)} is not implemented yet`)),
  });
}
