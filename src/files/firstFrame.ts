/**
 * The first picture of an image sequence that sharp cannot read (an animated AVIF: an AV1 track in an
 * ISO-BMFF container, `avis`), decoded by ffmpeg as a PNG. ffmpeg runs as a child process with a time limit
 * and reads the input as `file:` so that no name can select another protocol; rotation is applied by it.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { DomainError, unprocessable } from '../platform/errors.js';

/** A first frame takes well under a second; past this the sequence is refused. */
export const FIRST_FRAME_TIMEOUT_MS = 30_000;
/** The PNG of the largest frame accepted (maxImagePixels of RGBA, compressed) fits well inside this. */
const MAX_PNG_BYTES = 512 * 1024 * 1024;

/** The first frame of `file` as PNG bytes. Throws 'unprocessable' with ffmpeg's first words, 'unavailable' without ffmpeg. */
export function firstFramePng(file: string, ffmpegPath: string, timeoutMs = FIRST_FRAME_TIMEOUT_MS): Promise<Buffer> {
  const abs = path.resolve(file);
  const args = ['-v', 'error', '-nostdin', '-i', `file:${abs}`, '-map', '0:V:0', '-frames:v', '1'];
  const out = [...args, '-f', 'image2pipe', '-c:v', 'png', 'pipe:1'];
  return new Promise((resolve, reject) => {
    execFile(
      ffmpegPath,
      out,
      { timeout: timeoutMs, maxBuffer: MAX_PNG_BYTES, encoding: 'buffer', windowsHide: true },
      (err, stdout, stderr) => {
        const e = err as (NodeJS.ErrnoException & { killed?: boolean }) | null;
        if (e?.code === 'ENOENT' || e?.code === 'EACCES') {
          return reject(
            new DomainError('unavailable', `ffmpeg cannot be run (${e.code}); set its path in the configuration`),
          );
        }
        if (e?.killed) return reject(unprocessable('the image sequence could not be decoded: it took too long'));
        if (e || stdout.length === 0) {
          const line =
            stderr
              .toString('utf8')
              .split('\n')
              .find((l) => l.trim() !== '') ?? 'no frame could be decoded';
          const words = line.split(`file:${abs}`).join('input').split(abs).join('input').slice(0, 200);
          return reject(unprocessable(`the image sequence could not be decoded: ${words.trim()}`));
        }
        resolve(stdout);
      },
    );
  });
}
