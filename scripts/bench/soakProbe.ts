/**
 * Preloaded into the soak bench's server process (`node --import tsx --import ./scripts/bench/soakProbe.ts
 * src/main.ts`, spawned with an IPC channel): answers the bench's `memory` message with the process's memory
 * after a full garbage collection (`--expose-gc`), so heap figures compare live objects, not collection timing.
 * When the bench goes away (the channel closes) it stops the server as SIGTERM would. It adds nothing to the
 * server itself; without an IPC channel it does nothing.
 */
if (process.send) {
  process.on('message', (msg: unknown) => {
    if (msg !== 'memory') return;
    const gc = (globalThis as { gc?: () => void }).gc;
    gc?.();
    const m = process.memoryUsage();
    process.send!({ type: 'memory', rss: m.rss, heapUsed: m.heapUsed, heapTotal: m.heapTotal, external: m.external });
  });
  // The IPC channel must not keep a stopping server alive; a bench that died (channel gone) stops it.
  process.channel?.unref();
  process.on('disconnect', () => process.kill(process.pid, 'SIGTERM'));
}
