/**
 * Types shared by the local vision detectors (objects, faces, text). Every
 * detector takes an image (encoded bytes or raw RGB) and returns Detections in
 * pixel coordinates of that image as displayed (EXIF orientation applied).
 */
export interface Point {
  x: number;
  y: number;
}

export interface Detection {
  /** Label in words (COCO class name for objects, 'face' for faces, the text read for OCR). */
  label: string;
  /** 0..1 */
  score: number;
  /** Axis-aligned box in pixels of the input image. */
  box: { x: number; y: number; width: number; height: number };
  /** 4 points, clockwise from top-left, pixels of the input image, clamped inside it. */
  polygon: Point[];
  /** Optional per-detection extras: landmarks for faces, etc. */
  extra?: Record<string, unknown>;
}

/** Cumulative time a detector spent per stage since it was loaded (for benchmarks). */
export interface DetectorTimings {
  /** Images processed. */
  images: number;
  /** Decode, resize and tensor packing. */
  preprocessMs: number;
  /** Model inference (session.run). */
  inferenceMs: number;
  /** Decoding the model output, NMS, mapping back to image pixels. */
  postprocessMs: number;
}

/** A loaded detector: pure, no I/O besides reading its model at load; runnable inside a worker thread. */
export interface Detector {
  /** Model identity to store with results, e.g. 'yolox-nano:<sha256 prefix>'. */
  readonly modelId: string;
  /** `image`: encoded bytes (JPEG/PNG/WebP) or raw RGB { data, width, height, channels: 3 }. */
  detect(image: Buffer | RawImage, opts?: { minScore?: number; maxDetections?: number }): Promise<Detection[]>;
  close(): Promise<void>;
  /** Optional: cumulative per-stage timings (see DetectorTimings). */
  timings?(): DetectorTimings;
}

export interface RawImage {
  data: Buffer;
  width: number;
  height: number;
  channels: 3;
}
