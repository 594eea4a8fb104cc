import os from 'node:os';

/**
 * onnxruntime session options for every model the worker loads. Leave one core
 * to the HTTP thread, and stop idle intra-op threads from busy-waiting after
 * each run (measured: ~35 ms of CPU burnt in the 200 ms after a ViT-B/32 run,
 * taken from sharp and the HTTP thread on a 2-core machine).
 */
export const SESSION_OPTIONS = {
  intraOpNumThreads: Math.max(1, os.availableParallelism() - 1),
  extra: { session: { intra_op: { allow_spinning: '0' } } },
};
