/**
 * Reference images as guidance. Janus-Pro cannot condition its image
 * generation on an input picture, so references steer the colours instead:
 * the generated image's per-channel mean and spread are moved toward the
 * references' (a Reinhard-style colour transfer in RGB, at GUIDANCE_STRENGTH).
 *
 * Only the statistics travel with the job (six numbers), never the images, so
 * a queued job stays small and a re-run after a crash needs no re-fetch.
 */
import sharp from 'sharp';

/** How far the colours move toward the references (0 = not at all, 1 = full transfer). */
export const GUIDANCE_STRENGTH = 0.6;
/** Spread is scaled by at most this factor either way (flat images would otherwise blow up noise). */
const MAX_SPREAD_SCALE = 2;

export const REFERENCE_GUIDANCE = 'colour guidance (per-channel mean and spread moved toward the reference images)';

export interface ColourStats {
  /** Per channel R, G, B, 0–255. */
  mean: [number, number, number];
  std: [number, number, number];
}

/** Mean and standard deviation per RGB channel of one encoded image. */
export async function colourStats(image: Buffer): Promise<ColourStats> {
  const { channels } = await sharp(image).rotate().removeAlpha().toColourspace('srgb').stats();
  const pick = (k: 'mean' | 'stdev') =>
    [0, 1, 2].map((c) => channels[Math.min(c, channels.length - 1)][k]) as [number, number, number];
  return { mean: pick('mean'), std: pick('stdev') };
}

/** The average statistics of several images. */
export function averageStats(all: ColourStats[]): ColourStats {
  const avg = (k: keyof ColourStats) =>
    [0, 1, 2].map((c) => all.reduce((s, x) => s + x[k][c], 0) / all.length) as [number, number, number];
  return { mean: avg('mean'), std: avg('std') };
}

/** Moves an image's colours toward `target` (PNG in, PNG out). */
export async function applyColourGuidance(
  png: Buffer,
  target: ColourStats,
  strength = GUIDANCE_STRENGTH,
): Promise<Buffer> {
  const own = await colourStats(png);
  const { data, info } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const scale = [0, 1, 2].map((c) =>
    Math.min(MAX_SPREAD_SCALE, Math.max(1 / MAX_SPREAD_SCALE, target.std[c] / Math.max(1, own.std[c]))),
  );
  const out = Buffer.alloc(data.length);
  for (let i = 0; i < data.length; i += 3) {
    for (let c = 0; c < 3; c++) {
      const x = data[i + c];
      const moved = (x - own.mean[c]) * scale[c] + target.mean[c];
      out[i + c] = Math.max(0, Math.min(255, Math.round(x + strength * (moved - x))));
    }
  }
  return sharp(out, { raw: { width: info.width, height: info.height, channels: 3 } })
    .png()
    .toBuffer();
}
