/**
 * Preloaded into a server process by test/jobs/shutdown.test.ts (`--import`): phase 3 of ingest
 * (`ingest-analyze`) takes TEST_ANALYZE_FRAME_MS (default 2000) per frame, as real models on a CPU do, and every
 * frame it analyses is printed to stderr as `slow-analyze {"jobId":…,"progress":…}`, so a test counts the frames
 * each process analysed. The wait ends early when the job's signal aborts (a shutdown), as a model call would
 * finish and the loop stop at its next frame. The stand-in models stay as they are.
 */
import { JobRunner } from '../../src/jobs/runner.js';
import type { HandlerOptions, JobHandler } from '../../src/jobs/handler.js';

const frameMs = Number(process.env.TEST_ANALYZE_FRAME_MS ?? 2000);

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
  });

type Register = (this: JobRunner, type: string, handler: JobHandler<any>, opts?: HandlerOptions<any>) => JobRunner;
const register = JobRunner.prototype.register as Register;
JobRunner.prototype.register = function <T>(type: string, handler: JobHandler<T>, opts?: HandlerOptions<T>) {
  if (type !== 'ingest-analyze') return register.call(this, type, handler, opts);
  const slow: JobHandler<T> = (job, ctx) =>
    handler(job, {
      ...ctx,
      async progress(p) {
        await ctx.progress(p);
        process.stderr.write(`slow-analyze ${JSON.stringify({ jobId: job.id, progress: p })}\n`);
        await sleep(frameMs, ctx.signal);
      },
    });
  return register.call(this, type, slow, opts);
};
