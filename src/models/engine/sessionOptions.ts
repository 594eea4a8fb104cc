import os from 'node:os';

/**
 * onnxruntime session options for every model the worker loads. Leave one core
 * to the HTTP thread, and stop idle intra-op threads from busy-waiting after
 * each run: the spinning burns CPU that sharp and the HTTP thread need
 * (docs/measurements/models.md).
 */
export const SESSION_OPTIONS = {
  intraOpNumThreads: Math.max(1, os.availableParallelism() - 1),
  extra: { session: { intra_op: { allow_spinning: '0' } } },
};
