/** The command line of `npm run import -- DIR [options]`, and where the server and key come from by default. */
import { readFileSync } from 'node:fs';
import path from 'node:path';

export interface ImportOptions {
  dir: string;
  /** A collection id or name; undefined: the organization's only collection. */
  collection?: string;
  /** Folder names inside the collection, '/'-separated; '' = the root. */
  into: string;
  server: string;
  key: string;
  dryRun: boolean;
  concurrency: number;
}

export const USAGE = `usage: npm run import -- DIR [--collection NAME|ID] [--into FOLDER/PATH] [--server URL] [--key KEY]
                          [--dry-run] [--concurrency N]
  --collection  a collection id or name (created when a name is new; default: the only collection)
  --into        folder names inside the collection, e.g. "Imports/2024" (created when missing)
  --server      default http://localhost:$PORT (PORT from the environment, else 3000)
  --key         default $LUMEN_API_KEY, else $BOOTSTRAP_API_KEY, else $DATA_DIR/initial-api-key (./data)
  --dry-run     say what would happen; upload and create nothing
  --concurrency uploads at once (default 4)`;

/** A usage error: printed with the usage, exit status 2. */
export class UsageError extends Error {}

/** The key from the environment or the local server's first-start key file; null when none. */
function defaultKey(env: NodeJS.ProcessEnv): string | null {
  if (env.LUMEN_API_KEY) return env.LUMEN_API_KEY;
  if (env.BOOTSTRAP_API_KEY) return env.BOOTSTRAP_API_KEY;
  try {
    return readFileSync(path.join(env.DATA_DIR || './data', 'initial-api-key'), 'utf8').trim() || null;
  } catch {
    return null;
  }
}

export function parseArgs(argv: string[], env: NodeJS.ProcessEnv = process.env): ImportOptions {
  const rest: string[] = [];
  const flags: Record<string, string | true> = {};
  const valued = new Set(['collection', 'into', 'server', 'key', 'concurrency']);
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (!a.startsWith('--')) {
      rest.push(a);
      continue;
    }
    const [name, inline] = a.slice(2).split(/=(.*)/s, 2);
    if (name === 'dry-run') flags[name] = true;
    else if (valued.has(name)) {
      const value = inline ?? argv[++i];
      if (value === undefined) throw new UsageError(`--${name} needs a value`);
      flags[name] = value;
    } else throw new UsageError(`unknown option --${name}`);
  }
  if (rest.length !== 1) throw new UsageError(rest.length ? 'give exactly one folder' : 'which folder? give DIR');
  const concurrency = flags.concurrency === undefined ? 4 : Number(flags.concurrency);
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 64)
    throw new UsageError('--concurrency must be a whole number from 1 to 64');
  const key = (flags.key as string | undefined) ?? defaultKey(env);
  if (!key) throw new UsageError('no API key: pass --key, or set LUMEN_API_KEY');
  const into = ((flags.into as string | undefined) ?? '')
    .split('/')
    .map((s) => s.trim())
    .filter(Boolean)
    .join('/');
  return {
    dir: path.resolve(rest[0]),
    collection: flags.collection as string | undefined,
    into,
    server: ((flags.server as string | undefined) ?? `http://localhost:${env.PORT || 3000}`).replace(/\/+$/, ''),
    key,
    dryRun: flags['dry-run'] === true,
    concurrency,
  };
}
