/**
 * Where the ffmpeg and ffprobe executables are.
 *
 * Order: a path from configuration; else the static binary shipped inside
 * @ffmpeg-installer/ffmpeg or @ffprobe-installer/ffprobe; else the bare name,
 * found on PATH by execFile. The answer is cached per configured value.
 */
import { accessSync, chmodSync, constants, statSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const cache = new Map<string, string>();

/** The ffmpeg executable to run. */
export function resolveFfmpeg(configured?: string): string {
  return resolve('ffmpeg', '@ffmpeg-installer/ffmpeg', configured);
}

/** The ffprobe executable to run. */
export function resolveFfprobe(configured?: string): string {
  return resolve('ffprobe', '@ffprobe-installer/ffprobe', configured);
}

function resolve(name: string, pkg: string, configured?: string): string {
  if (configured) return configured;
  const hit = cache.get(name);
  if (hit) return hit;
  const found = fromInstallerPackage(pkg) ?? name;
  cache.set(name, found);
  return found;
}

/** The binary path an installer package exports, if the package is there and the binary can be run. */
function fromInstallerPackage(pkg: string): string | null {
  let binary: string | undefined;
  try {
    // These packages throw (a plain string, even) on platforms they have no binary for.
    binary = (require(pkg) as { path?: string }).path;
  } catch {
    return null;
  }
  if (!binary) return null;
  try {
    if (!statSync(binary).isFile()) return null;
  } catch {
    return null;
  }
  if (isExecutable(binary)) return binary;
  // @ffprobe-installer ships its binary as rwxr--r--: only the file's owner may
  // run it. Try to fix the mode (works when we own node_modules); else use PATH.
  try {
    chmodSync(binary, 0o755);
  } catch {
    return null;
  }
  return isExecutable(binary) ? binary : null;
}

function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
