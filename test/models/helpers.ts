/** Shared set-up for the model tests: temp models folders, test config, solid-colour images. */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { loadConfig, type Config } from '../../src/config.js';
import { createLogger, type Logger } from '../../src/platform/logger.js';

/** A fresh models folder under the OS temp dir; remove it with `cleanup`. */
export function tempModelsDir(prefix = 'lumen-models-'): { dir: string; cleanup(): void } {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export function testConfig(modelsDir: string, env: Record<string, string> = {}): Config {
  return loadConfig({ MODEL_PROFILE: 'test', MODELS_DIR: modelsDir, ...env });
}

/** Logger that keeps lines (for assertions) and prints nothing. */
export function memoryLogger(): Logger & { lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger('debug', {}, (line) => lines.push(JSON.parse(line)));
  return Object.assign(logger, { lines });
}

export const RGB = {
  red: [220, 20, 25],
  green: [30, 170, 40],
  blue: [20, 40, 230],
  yellow: [250, 235, 30],
  white: [255, 255, 255],
  black: [5, 5, 5],
} as const;
export type ColourName = keyof typeof RGB;

/** A solid-colour image, encoded (PNG by default). */
export function solid(
  colour: ColourName,
  opts: { width?: number; height?: number; format?: 'png' | 'jpeg' | 'webp' } = {},
): Promise<Buffer> {
  const [r, g, b] = RGB[colour];
  const img = sharp({
    create: { width: opts.width ?? 96, height: opts.height ?? 64, channels: 3, background: { r, g, b } },
  });
  return (opts.format === 'jpeg' ? img.jpeg() : opts.format === 'webp' ? img.webp() : img.png()).toBuffer();
}

/** Mostly `main` with a smaller `patch` square in the middle (dominant colour = main). */
export async function mostly(main: ColourName, patch: ColourName): Promise<Buffer> {
  const [r, g, b] = RGB[main];
  const square = await solid(patch, { width: 40, height: 40 });
  return sharp({ create: { width: 128, height: 128, channels: 3, background: { r, g, b } } })
    .composite([{ input: square, left: 44, top: 44 }])
    .png()
    .toBuffer();
}

export const dot = (a: Float32Array, b: Float32Array): number => a.reduce((s, x, i) => s + x * b[i], 0);
export const norm = (a: Float32Array): number => Math.sqrt(dot(a, a));
