import os from 'node:os';

/**
 * Intra-op threads of each transformers.js session: MODEL_THREADS when set (a whole number ≥ 1), else
 * every core. The model threads run at INFERENCE_NICE, so they yield to the HTTP thread: with all cores,
 * photos per hour rose 1.8× over cores − 1 while browse p99 under ingest stayed within 1.5× of idle
 * (docs/measurements/throughput.md). Read in the worker thread, which sees the process environment.
 */
export function modelThreads(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.MODEL_THREADS;
  const n = raw === undefined || raw === '' ? NaN : Number(raw);
  return Number.isInteger(n) && n >= 1 ? n : Math.max(1, os.availableParallelism());
}

/**
 * onnxruntime session options for every model the worker loads. Stop idle intra-op threads from
 * busy-waiting after each run: the spinning burns CPU that sharp and the HTTP thread need
 * (docs/measurements/models.md).
 */
export const SESSION_OPTIONS = {
  intraOpNumThreads: modelThreads(),
  extra: { session: { intra_op: { allow_spinning: '0' } } },
};
