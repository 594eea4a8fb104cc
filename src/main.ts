import http from 'node:http';
import { createApp } from './app.js';
import { loadConfig } from './config.js';
import { createLogger } from './platform/logger.js';
import { StartupError } from './platform/startupError.js';
import { answerParserRefusals } from './http/parserRefusals.js';
import { msLeft, requestCutoffMs } from './jobs/shutdownBudget.js';

/**
 * `npm start`: read the configuration, open the library, serve HTTP, and shut
 * down gracefully on SIGTERM/SIGINT: stop accepting, let in-flight requests and
 * running jobs finish side by side until one deadline (SHUTDOWN_GRACE_SECONDS,
 * default 7: inside `docker stop`'s 10 s), interrupt what is left, close the database.
 */
async function main() {
  const config = loadConfig();
  const logger = createLogger(config.logLevel);
  const app = await createApp(config, logger);
  // ROLE=worker serves no API: /healthz only (for the orchestrator), every other path 404.
  const server = http.createServer(config.role === 'worker' ? healthzOnly(app.koa.callback()) : app.koa.callback());
  answerParserRefusals(server);
  // Uploads of large videos can take a while on slow links; don't cut them off.
  server.requestTimeout = 0;
  server.headersTimeout = 60_000;
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, resolve);
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  logger.info('listening', {
    host: config.host,
    port,
    role: config.role,
    dataDir: config.dataDir,
    publicUrl: config.publicUrl ?? 'the host each request came to',
  });

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    // One deadline for requests and jobs together (jobs/shutdownBudget.ts), inside `docker stop`'s 10 s.
    const deadline = Date.now() + config.shutdownGraceSeconds * 1000;
    logger.info('shutting down', { signal, graceSeconds: config.shutdownGraceSeconds });
    const overrun = setTimeout(
      () => {
        logger.error('shutdown overran its deadline by 2 s; exiting now');
        process.exit(1);
      },
      msLeft(deadline) + 2_000,
    );
    overrun.unref();
    app.markClosing();
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    const timer = setTimeout(() => {
      logger.warn('grace period over; closing remaining connections');
      server.closeAllConnections();
    }, requestCutoffMs(deadline));
    await app.close({ deadline, requestsDone: closed.then(() => clearTimeout(timer)) });
    logger.info('stopped', { ms: config.shutdownGraceSeconds * 1000 - msLeft(deadline) });
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

function healthzOnly(handler: http.RequestListener): http.RequestListener {
  return (req, res) => {
    if ((req.url ?? '').split('?')[0] === '/healthz') return void handler(req, res);
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: 'Not Found', message: 'this process is a worker (ROLE=worker): only /healthz' }));
  };
}

main().catch((err) => {
  // A setting the operator can fix is one line naming the fix; anything else keeps its stack for a bug report.
  const text = err instanceof StartupError ? err.message : err instanceof Error ? err.stack : String(err);
  process.stderr.write(`failed to start: ${text}\n`);
  process.exit(1);
});
