import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import * as ort from 'onnxruntime-node';

export interface ModelSessionOptions {
  /** onnxruntime intra-op threads (default: onnxruntime's choice). */
  threads?: number;
  executionProviders?: ort.InferenceSession.SessionOptions['executionProviders'];
  /** Let idle intra-op threads busy-wait after a run (default off: it starves sharp and the HTTP thread on small machines). */
  spinning?: boolean;
}

/**
 * Opens an ONNX model for one of the onnxruntime detectors: the session, and
 * the id recorded with every result (`name:<first 12 hex of the file's sha256>`),
 * so results of different weights are never mistaken for each other.
 */
export async function openModel(
  modelPath: string,
  name: string,
  opts: ModelSessionOptions = {},
): Promise<{ modelId: string; session: ort.InferenceSession }> {
  const bytes = await readFile(modelPath);
  const modelId = `${name}:${createHash('sha256').update(bytes).digest('hex').slice(0, 12)}`;
  const session = await ort.InferenceSession.create(bytes, {
    executionProviders: opts.executionProviders ?? ['cpu'],
    graphOptimizationLevel: 'all',
    // Some exports list their initializers as graph inputs and onnxruntime warns once per weight: errors only.
    logSeverityLevel: 3,
    ...(opts.spinning ? {} : { extra: { session: { intra_op: { allow_spinning: '0' } } } }),
    ...(opts.threads ? { intraOpNumThreads: opts.threads, interOpNumThreads: 1 } : {}),
  });
  return { modelId, session };
}

/** The open/closed state of a runner holding onnxruntime sessions. */
export interface SessionLifetime {
  /** Throws `closedMessage` once close() has been called. */
  assertOpen(): void;
  /** Releases the sessions, once; later calls do nothing. */
  close(): Promise<void>;
}

export function sessionLifetime(
  closedMessage: string,
  sessions: readonly (ort.InferenceSession | null)[],
): SessionLifetime {
  let closed = false;
  return {
    assertOpen() {
      if (closed) throw new Error(closedMessage);
    },
    async close() {
      if (closed) return;
      closed = true;
      await Promise.all(sessions.map((session) => session?.release()));
    },
  };
}
