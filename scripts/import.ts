/**
 * npm run import -- DIR [--collection NAME|ID] [--into FOLDER/PATH] [--server URL] [--key KEY] [--dry-run]
 *                       [--concurrency N]
 *
 * Imports a folder of photos and videos into a collection through the public HTTP API (src/cli/import).
 * Exit status: 0 done (unsupported files are listed, not failures), 1 some files failed or the server
 * refused the run, 2 usage.
 */
import { parseArgs, UsageError, USAGE } from '../src/cli/import/args.js';
import { ApiError } from '../src/cli/import/client.js';
import { runImport } from '../src/cli/import/run.js';

try {
  const opts = parseArgs(process.argv.slice(2));
  const logEveryMs = process.env.IMPORT_LOG_SECONDS ? Number(process.env.IMPORT_LOG_SECONDS) * 1000 : undefined;
  const summary = await runImport(opts, { out: process.stdout, logEveryMs });
  process.exitCode = summary.failed.length ? 1 : 0;
} catch (err) {
  if (err instanceof UsageError) {
    process.stderr.write(`${err.message}\n${USAGE}\n`);
    process.exitCode = 2;
  } else if (err instanceof ApiError) {
    process.stderr.write(`import stopped: ${err.status ? `${err.status} ` : ''}${err.message}\n`);
    process.exitCode = 1;
  } else throw err;
}
