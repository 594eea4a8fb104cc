/**
 * Loads something from the API for a screen and keeps the three states a screen shows: loading, the
 * error's message, or the data. `reload()` fetches again (after a change the screen made).
 */
import { useCallback, useEffect, useState } from 'preact/hooks';
import { describeError } from '../lib/api';

export interface Loaded<T> {
  data: T | undefined;
  error: string | null;
  loading: boolean;
  reload(): void;
}

export function useLoad<T>(load: (signal: AbortSignal) => Promise<T>, deps: unknown[]): Loaded<T> {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(true);
  const [generation, setGeneration] = useState(0);
  useEffect(() => {
    const abort = new AbortController();
    setLoading(true);
    load(abort.signal).then(
      (value) => {
        if (abort.signal.aborted) return;
        setData(value);
        setError(null);
        setLoading(false);
      },
      (err) => {
        if (abort.signal.aborted) return;
        setError(describeError(err));
        setLoading(false);
      },
    );
    return () => abort.abort();
  }, [...deps, generation]);
  const reload = useCallback(() => setGeneration((g) => g + 1), []);
  return { data, error, loading, reload };
}
