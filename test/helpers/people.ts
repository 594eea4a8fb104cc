/**
 * People for the API, browser and bench tests: items with synthetic faces (test/helpers/faceVectors.ts),
 * written through the app's own stores on either engine, then clustered as the background job would.
 * Each face's crop is a small coloured WebP, one colour per person, so the People screens show something.
 */
import sharp from 'sharp';
import { newMediaId, pathLabel } from '../../src/platform/ids.js';
import { seededRandom } from '../../src/platform/random.js';
import type { TestApp } from './testApp.js';
import { unit } from '../../src/index/faces/vectorMath.js';
import { dotp, faceOf, randomUnit } from './faceVectors.js';

export const FACE_MODEL = 'testface:000000000000';
export const FACE_THRESHOLDS = { testface: 0.45 };

export interface SeededPeople {
  /** Per person, the items holding their faces (one face per item, in order). */
  items: string[][];
  /** Per person, their face (object) ids. */
  faces: string[][];
  /** Per person, the cluster their first face is in. */
  clusterIds: string[];
}

/** A crop for person `i`: a flat colour of their own. */
async function cropOf(app: TestApp, i: number): Promise<string> {
  const hue = (i * 137) % 360;
  const [r, g, b] = [0, 120, 240].map((o) => Math.round(127 + 100 * Math.cos(((hue + o) * Math.PI) / 180)));
  const bytes = await sharp({ create: { width: 64, height: 64, channels: 3, background: { r, g, b } } })
    .webp()
    .toBuffer();
  return (await app.app.services.blobs.putBuffer(bytes, 'webp')).key;
}

/** An image item with one frame, through the media store; its media and frame ids. */
export async function addFaceItem(app: TestApp, datasetId: string, name: string) {
  const me = (await app.request('GET', '/api/me')).body as { userId: string; organizationId: string };
  const id = newMediaId();
  const frameId = newMediaId();
  await app.app.services.storage.media.insert(
    {
      id,
      collectionId: datasetId,
      organizationId: me.organizationId,
      parentPath: pathLabel(datasetId),
      type: 'image',
      name,
      blobKey: `blob-${id}`,
      mimeType: 'image/jpeg',
      width: 640,
      height: 480,
      duration: null,
      sizeBytes: 1000,
      exif: {},
      metadata: {},
      processingStatus: 'ready',
      createdById: me.userId,
    },
    [{ id: frameId, timestamp: '0', blobKey: `frame-${id}`, width: 640, height: 480 }],
  );
  return { mediaId: id, frameId };
}

/** One item holding one face (its crop `crop`, its vector `vector`), waiting to be clustered; its ids. */
export async function addFace(
  app: TestApp,
  datasetId: string,
  name: string,
  vector: Float32Array,
  crop: string,
  caption?: string,
): Promise<{ mediaId: string; objectId: string }> {
  const item = await addFaceItem(app, datasetId, name);
  const objectId = newMediaId();
  await app.app.services.storage.analysis.replaceFrameAnalysis(item.frameId, {
    captions: caption ? [{ id: newMediaId(), text: caption, model: 'test-captioner' }] : [],
    objects: [
      {
        id: objectId,
        type: 'face',
        label: 'face',
        blobKey: crop,
        polygon: [
          { x: 0, y: 0 },
          { x: 10, y: 0 },
          { x: 10, y: 10 },
          { x: 0, y: 10 },
        ],
        confidence: 0.9,
        model: 'ultraface-rfb-320:test',
        similarityModel: 'faces',
        embedding: { modelId: FACE_MODEL, vector },
      },
    ],
  });
  return { mediaId: item.mediaId, objectId };
}

/**
 * `faces[i]` faces of person i, each on an item of its own named `<prefix><i>-<k>.jpg`; clustered. Crops are
 * coloured WebPs unless `crops: false` (a key of nothing: faster, for big libraries).
 */
export async function seedPeople(
  app: TestApp,
  datasetId: string,
  faces: number[],
  opts: {
    seed?: number;
    prefix?: string;
    captions?: Record<string, string>;
    crops?: boolean;
    /** Person i's identity vector (default: a random one); faces are at cosine `likeness` (0.9) to it. */
    identities?: Float32Array[];
    likeness?: number;
  } = {},
): Promise<SeededPeople> {
  const r = seededRandom(opts.seed ?? 7);
  const out: SeededPeople = { items: [], faces: [], clusterIds: [] };
  const { storage } = app.app.services;
  for (let i = 0; i < faces.length; i++) {
    const identity = opts.identities?.[i] ?? randomUnit(r);
    const crop = opts.crops === false ? `crop-${i}` : await cropOf(app, i);
    out.items.push([]);
    out.faces.push([]);
    for (let k = 0; k < faces[i]; k++) {
      const name = `${opts.prefix ?? 'person'}${i}-${k}.jpg`;
      const face = await addFace(
        app,
        datasetId,
        name,
        faceOf(identity, opts.likeness ?? 0.9, r),
        crop,
        opts.captions?.[name],
      );
      out.items[i].push(face.mediaId);
      out.faces[i].push(face.objectId);
    }
  }
  while ((await storage.clusters.assignPending(datasetId, 10_000, { thresholds: FACE_THRESHOLDS })).more);
  for (const f of out.faces) out.clusterIds.push((await storage.clusters.clusterOfObject(f[0]))!);
  return out;
}

/**
 * Two people whose identities are at cosine 0.4 (clustered apart at the stand-in's 0.45, suggested as maybe
 * one person under FACE_CLUSTER_THRESHOLDS=testface=0.3) and a third: 5, 4 and 3 faces.
 */
export async function seedTwins(app: TestApp, datasetId: string): Promise<SeededPeople> {
  const r = seededRandom(9);
  const u = randomUnit(r);
  let w = randomUnit(r);
  const uw = dotp(u, w);
  w = unit(w.map((x, i) => x - uw * u[i]));
  const twin = unit(u.map((x, i) => 0.4 * x + Math.sqrt(1 - 0.16) * w[i]));
  return seedPeople(app, datasetId, [5, 4, 3], {
    seed: 10,
    prefix: 'tw',
    likeness: 0.95,
    identities: [u, twin, randomUnit(r)],
  });
}
