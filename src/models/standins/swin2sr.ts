/**
 * A Swin2SR-shaped stand-in upscaler (the layout of
 * Xenova/swin2SR-classical-sr-x2-64): model_type "swin2sr", loaded by
 * transformers.js as Swin2SRForImageSuperResolution with the real
 * Swin2SRImageProcessor (rescale to 0–1, symmetric pad to a multiple of 8).
 *
 *   onnx/model.onnx  pixel_values [B,3,H,W] → reconstruction [B,3,2H,2W]
 *
 * The "network" is a nearest-neighbour Resize ×2: every input pixel becomes a
 * 2×2 block of the same value. Tests can therefore check the upscaler exactly
 * (tiling and stitching included): output pixel (2x+i, 2y+j) = input (x, y).
 */
import { GraphBuilder } from './onnx/graphBuilder.js';
import type { StandinFiles } from './embedder.js';

/** The real model's window size, which its processor pads to. */
const PAD_SIZE = 8;

export function swin2srStandinFiles(): StandinFiles {
  const g = new GraphBuilder('swin2sr_standin');
  const pixels = g.input('pixel_values', 'float32', ['batch_size', 3, 'height', 'width']);
  const scales = g.floatTensor([1, 1, 2, 2], [4], 'scales');
  // Opset 17 Resize: (X, roi, scales); an empty name omits roi. asymmetric + floor = exact pixel repetition.
  const up = g.op('Resize', [pixels, '', scales], {
    mode: 'nearest',
    coordinate_transformation_mode: 'asymmetric',
    nearest_mode: 'floor',
  });
  g.output(up, 'reconstruction', 'float32', ['batch_size', 3, 'height_x2', 'width_x2']);

  const files: StandinFiles = new Map();
  files.set(
    'config.json',
    JSON.stringify(
      {
        architectures: ['Swin2SRForImageSuperResolution'],
        model_type: 'swin2sr',
        upscale: 2,
        upsampler: 'pixelshuffle',
        img_size: 64,
        window_size: PAD_SIZE,
        num_channels: 3,
        img_range: 1.0,
      },
      null,
      2,
    ),
  );
  files.set(
    'preprocessor_config.json',
    JSON.stringify(
      {
        image_processor_type: 'Swin2SRImageProcessor',
        do_rescale: true,
        rescale_factor: 1 / 255,
        do_pad: true,
        pad_size: PAD_SIZE,
      },
      null,
      2,
    ),
  );
  files.set('onnx/model.onnx', g.toModel({ docString: 'stand-in Swin2SR ×2: nearest-neighbour resize' }));
  return files;
}
