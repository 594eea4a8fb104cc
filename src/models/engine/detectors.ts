/**
 * The onnxruntime-node models of the ingest pipeline (objects, faces, face
 * embeddings, text), hosted in the model worker beside the transformers.js
 * ones so their CPU work never runs on the HTTP event loop. Loaded lazily,
 * once, and kept.
 */
import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { DomainError } from '../../platform/errors.js';
import { loadFaceEmbedder, type FaceEmbedder } from '../vision/faceEmbedder.js';
import { loadOcr } from '../vision/ocr/index.js';
import type { Detection, Detector } from '../vision/types.js';
import { loadUltraFaceDetector } from '../vision/ultraface.js';
import { loadYoloxDetector } from '../vision/yolox.js';
import type { ModelEntry } from '../catalog.js';
import type { Standins } from '../loadStandins.js';

export class DetectorHost {
  private readonly loading = new Map<string, Promise<Detector | FaceEmbedder>>();

  /** `standins`: the test profile's generators (null otherwise); detectors without a stand-in need their real files. */
  constructor(private readonly opts: { modelsDir: string; standins: Standins | null }) {}

  /**
   * The model file of a detector entry: the installed file when present; in the
   * test profile otherwise its stand-in (written once, atomically).
   */
  private modelFile(entry: ModelEntry): string {
    const file = entry.files[0]?.path;
    if (!file) throw new DomainError('unavailable', `model ${entry.name} lists no file`);
    const real = path.join(this.opts.modelsDir, entry.dir, file);
    if (existsSync(real)) return real;
    const standin = this.opts.standins?.detector(entry);
    if (this.opts.standins && standin) {
      const target = path.join(this.opts.standins.root(this.opts.modelsDir), entry.name, standin.fileName);
      if (!existsSync(target)) {
        mkdirSync(path.dirname(target), { recursive: true });
        const tmp = `${target}.${process.pid}.${Math.random().toString(36).slice(2)}`;
        writeFileSync(tmp, standin.build());
        renameSync(tmp, target);
      }
      return target;
    }
    if (!existsSync(real))
      throw new DomainError(
        'unavailable',
        `model ${entry.name} is not installed: run \`npm run models -- fetch ${entry.name}\``,
      );
    return real;
  }

  private load(entry: ModelEntry): Promise<Detector | FaceEmbedder> {
    let p = this.loading.get(entry.name);
    if (!p) {
      p = (async () => {
        switch (entry.arch) {
          case 'yolox':
            return loadYoloxDetector({
              modelPath: this.modelFile(entry),
              inputSize: entry.inputSize,
              name: entry.name,
            });
          case 'ultraface':
            return loadUltraFaceDetector({ modelPath: this.modelFile(entry), modelName: entry.name });
          case 'sface':
            return loadFaceEmbedder({ modelPath: this.modelFile(entry), modelName: entry.name });
          case 'ppocr':
            return loadOcr({});
          default:
            throw new DomainError('invalid_input', `model ${entry.name} is not a detector`);
        }
      })();
      // A failed load is not cached: the next request tries again (e.g. after the user fetched the model).
      p.catch(() => this.loading.delete(entry.name));
      this.loading.set(entry.name, p);
    }
    return p;
  }

  /** One JSON-encoded Detection[] per image. */
  async detect(entry: ModelEntry, images: Uint8Array[], minScore?: number): Promise<string[]> {
    const detector = (await this.load(entry)) as Detector;
    const out: string[] = [];
    for (const image of images) out.push(JSON.stringify(await detector.detect(Buffer.from(image), { minScore })));
    return out;
  }

  /** The face vectors of one image, concatenated into one Float32Array (faces × dims). */
  async embedFaces(entry: ModelEntry, image: Uint8Array, faces: Detection[]): Promise<Float32Array> {
    const embedder = (await this.load(entry)) as FaceEmbedder;
    if (faces.length === 0) return new Float32Array(0);
    const vectors = await embedder.embed(Buffer.from(image), faces);
    const all = new Float32Array(vectors.length * embedder.dims);
    vectors.forEach((v, i) => all.set(v, i * embedder.dims));
    return all;
  }

  /** The identity recorded with results: the loaded model's own id (name and file hash). */
  async modelId(entry: ModelEntry): Promise<string> {
    return (await this.load(entry)).modelId;
  }
}
