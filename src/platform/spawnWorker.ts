import { Worker } from 'node:worker_threads';

/**
 * Starts a worker thread on the module `entry` beside the calling module
 * (`callerUrl`: its import.meta.url): the .ts source under tsx (tests, dev),
 * the compiled .js under dist/.
 *
 * `preload`: big plain-JS packages the worker imports before tsx's hooks are
 * registered (through them, transformers.js alone takes over a second longer
 * to load).
 */
export function spawnWorker(callerUrl: string, entry: string, workerData: unknown, preload: string[] = []): Worker {
  if (callerUrl.endsWith('.ts')) {
    // Node 20 does not run --import hooks in worker threads, so register tsx there before importing the entry.
    const urls = preload.map((s) => import.meta.resolve(s));
    const api = import.meta.resolve('tsx/esm/api');
    const module = new URL(`./${entry}.ts`, callerUrl).href;
    const boot =
      `Promise.all(${JSON.stringify(urls)}.map((u) => import(u)))` +
      `.then(() => import(${JSON.stringify(api)})).then((m) => { m.register(); return import(${JSON.stringify(module)}); });`;
    return new Worker(boot, { eval: true, workerData });
  }
  return new Worker(new URL(`./${entry}.js`, callerUrl), { workerData });
}

/**
 * Stops a worker and waits for it to be gone. Node holds nothing while a
 * worker stops, so a process with nothing else to do (a test, a shutdown)
 * would exit before the caller's await returned: a timer holds it meanwhile.
 */
export async function stopWorker(worker: Worker): Promise<void> {
  const hold = setInterval(() => {}, 1000);
  try {
    await worker.terminate();
  } finally {
    clearInterval(hold);
  }
}
