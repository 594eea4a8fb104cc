import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { resolveFfmpeg } from '../../src/files/binaries.js';

const run = promisify(execFile);

/** Arguments for ffmpeg's input: one second of its 64×48 test pattern at 10 fps. */
export const TEST_PATTERN = ['-f', 'lavfi', '-i', 'testsrc=size=64x48:rate=10', '-t', '1'];

/** Runs the bundled ffmpeg quietly with `args`, writing `file` (overwritten); returns `file`. */
export async function ffmpegTo(file: string, ...args: string[]): Promise<string> {
  await run(resolveFfmpeg(), ['-v', 'error', '-y', ...args, file]);
  return file;
}

/** A one-second clip of the test pattern at `file`, encoded as `args` say (codec, metadata). */
export const testClip = (file: string, ...args: string[]) => ffmpegTo(file, ...TEST_PATTERN, ...args);
