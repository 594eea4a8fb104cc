import os from 'node:os';

/**
 * Intra-op threads of each transformers.js session: MODEL_THREADS when set (a whole number ≥ 1), else
 * all cores but one, left to the HTTP thread. With INFERENCE_NICE the model threads yield to HTTP anyway,
 * so MODEL_THREADS = the core count uses the last core too without starving browse
 * (docs/measurements/throughput.md). Read in the worker thread, which sees the process environment.
 */
export function modelThreads(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.MODEL_THREADS;
  const n = raw === undefined || raw === '' ? NaN : Number(raw);
  return Number.isInteger(n) && n >= 1 ? n : Math.max(1, os.availableParallelism() - 1);
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
