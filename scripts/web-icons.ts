/**
 * The installable app's files (web app manifest and icons), written beside index.html by build-web.ts:
 * the manifest as committed (web/manifest.webmanifest), the SVG favicon, and PNG icons rendered from it with
 * sharp at build time (192 and 512 px, and a 512 px maskable one whose symbol sits inside the safe zone).
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import sharp from 'sharp';

/** The favicon's own background colour: a maskable icon's full-bleed square is filled with it. */
const ICON_BACKGROUND = '#2563eb';
/** A maskable icon's symbol must fit the central 80 % circle; 72 % of the side leaves a margin. */
const MASKABLE_SCALE = 0.72;

export async function writeAppIcons(root: string, outdir: string): Promise<void> {
  const svg = await readFile(path.join(root, 'web/favicon.svg'));
  await writeFile(path.join(outdir, 'favicon.svg'), svg);
  await writeFile(
    path.join(outdir, 'manifest.webmanifest'),
    await readFile(path.join(root, 'web/manifest.webmanifest')),
  );
  for (const size of [192, 512])
    await sharp(svg, { density: (72 * size) / 32 })
      .resize(size, size)
      .png()
      .toFile(path.join(outdir, `icon-${size}.png`));
  const inner = Math.round(512 * MASKABLE_SCALE);
  const symbol = await sharp(svg, { density: (72 * inner) / 32 })
    .resize(inner, inner)
    .png()
    .toBuffer();
  await sharp({ create: { width: 512, height: 512, channels: 4, background: ICON_BACKGROUND } })
    .composite([{ input: symbol, gravity: 'centre' }])
    .png()
    .toFile(path.join(outdir, 'icon-maskable-512.png'));
}
